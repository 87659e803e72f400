import { randomBytes } from 'node:crypto';
import {
  InboundBudget,
  inboundBudgetError,
  parseCallerJson,
  serverEventJson,
  type InboundBudgetLimits,
  type Logger,
  type RealtimeOutput,
  type RealtimeServerEvent,
} from '@svc/core';
import { CLOSE_CODES, type GatewayEnding } from './close-codes.js';
import type { SessionEnding } from '@svc/core';
import WebSocket from 'ws';
import type { RealtimeSessionHandle } from './gateway-types.js';

export interface ConnectionLimits {
  maxBufferedBytes: number;
  maxPendingEvents: number;
  inbound: InboundBudgetLimits;
}

const SLOW_READER_GRACE_MS = 2000;
/** Audio deltas arrive as bytes (the engine keeps audio binary to the transport): Node's native encoder. */
const base64 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
/** How long a client closed for flooding has to take the close frame before its socket is destroyed. */
const FLOODER_GRACE_MS = 1000;

/**
 * One WebSocket carrying one session: JSON frames in, server events out. Three kinds of flow
 * control keep one client from costing the others: every inbound frame (valid, invalid JSON or
 * binary) is counted against the connection's budget of frames and bytes per second, and a client
 * over it gets one `error` and is closed (1008); when the client sends faster than its frames are
 * handled the socket stops being read (TCP pushes back on the client); and when the client does not
 * read what the server sends, it is dropped once `maxBufferedBytes` are queued.
 */
export class RealtimeConnection implements RealtimeOutput {
  private session: RealtimeSessionHandle | null = null;
  private pending = 0;
  private paused = false;
  private closing = false;
  private readonly budget: InboundBudget;
  alive = true;

  constructor(
    private readonly ws: WebSocket,
    private readonly limits: ConnectionLimits,
    private readonly logger: Logger,
  ) {
    this.budget = new InboundBudget(limits.inbound, () => performance.now());
  }

  attach(session: RealtimeSessionHandle): void {
    this.session = session;
    this.ws.on('message', (data, isBinary) => this.onFrame(data, isBinary));
    this.ws.on('pong', () => (this.alive = true));
  }

  send(event: RealtimeServerEvent): void {
    if (this.closing || this.ws.readyState !== WebSocket.OPEN) return;
    this.ws.send(serverEventJson(event, base64));
    if (this.ws.bufferedAmount > this.limits.maxBufferedBytes) this.dropSlowReader();
  }

  /** Why the server closed this connection (null while open, or when the client closed it). */
  endedBy: SessionEnding | GatewayEnding | null = null;

  close(ending: SessionEnding | GatewayEnding, reason: string): void {
    if (this.closing) return;
    this.closing = true;
    this.endedBy = ending;
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(CLOSE_CODES[ending], reason);
  }

  /** Server shutdown. */
  shutdown(): void {
    this.close('server_shutdown', 'server shutting down');
  }

  private onFrame(data: WebSocket.RawData, isBinary: boolean): void {
    const session = this.session;
    if (!session || this.closing) return;
    if (!this.budget.take(rawLength(data))) return this.dropFlooder();
    if (isBinary) return this.track(session.rejectFrame('Binary frames are not supported; send JSON text frames.'));
    let parsed: unknown;
    try {
      parsed = parseCallerJson(rawText(data));
    } catch (err) {
      return this.track(session.rejectFrame(`Invalid JSON: ${(err as Error).message}`));
    }
    this.track(session.handle(parsed));
  }

  /**
   * Every frame, answered or refused, waits in the session's queue until it is handled: when
   * `maxPendingEvents` wait, the socket is not read until half of them are done.
   */
  private track(work: void | Promise<void>): void {
    this.pending++;
    if (!this.paused && this.pending >= this.limits.maxPendingEvents) {
      this.paused = true;
      this.ws.pause();
    }
    void Promise.resolve(work).finally(() => {
      this.pending--;
      if (this.paused && !this.closing && this.pending <= this.limits.maxPendingEvents / 2) {
        this.paused = false;
        this.ws.resume();
      }
    });
  }

  /** Over the inbound budget: one `error` saying so, close 1008, and nothing more is read. */
  private dropFlooder(): void {
    const { eventsPerSecond, bytesPerSecond } = this.limits.inbound;
    this.logger.warn({ eventsPerSecond, bytesPerSecond }, 'closing a realtime client that sends faster than its inbound budget');
    this.send({ type: 'error', event_id: `event_${randomBytes(12).toString('hex')}`, error: inboundBudgetError(this.limits.inbound) });
    this.close('inbound_rate_exceeded', 'inbound rate limit exceeded');
    // What it still sends is never read (not even parsed); the close frame has a moment to leave.
    this.ws.pause();
    setTimeout(() => this.ws.terminate(), FLOODER_GRACE_MS).unref();
  }

  private dropSlowReader(): void {
    this.logger.warn({ bufferedBytes: this.ws.bufferedAmount }, 'dropping a realtime client that does not read its events');
    this.close('slow_reader', 'client is not reading events fast enough');
    // The close frame queues behind the unread data; a client that never reads never sees it.
    setTimeout(() => this.ws.terminate(), SLOW_READER_GRACE_MS).unref();
  }
}

function rawLength(data: WebSocket.RawData): number {
  if (Array.isArray(data)) return data.reduce((n, part) => n + part.length, 0);
  return data.byteLength;
}

function rawText(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
