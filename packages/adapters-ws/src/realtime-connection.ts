import type { Logger, RealtimeOutput, RealtimeServerEvent } from '@svc/core';
import { CLOSE_CODES, type GatewayEnding } from './close-codes.js';
import type { SessionEnding } from '@svc/core';
import WebSocket from 'ws';
import type { RealtimeSessionHandle } from './gateway-types.js';

export interface ConnectionLimits {
  maxBufferedBytes: number;
  maxPendingEvents: number;
}

const SLOW_READER_GRACE_MS = 2000;

/**
 * One WebSocket carrying one session: JSON frames in, server events out. Two kinds of flow
 * control keep memory bounded: when the client sends faster than events are processed the socket
 * stops being read (TCP pushes back on the client), and when the client does not read what the
 * server sends, it is dropped once `maxBufferedBytes` are queued.
 */
export class RealtimeConnection implements RealtimeOutput {
  private session: RealtimeSessionHandle | null = null;
  private pending = 0;
  private paused = false;
  private closing = false;
  alive = true;

  constructor(
    private readonly ws: WebSocket,
    private readonly limits: ConnectionLimits,
    private readonly logger: Logger,
  ) {}

  attach(session: RealtimeSessionHandle): void {
    this.session = session;
    this.ws.on('message', (data, isBinary) => this.onFrame(data, isBinary));
    this.ws.on('pong', () => (this.alive = true));
  }

  send(event: RealtimeServerEvent): void {
    if (this.closing || this.ws.readyState !== WebSocket.OPEN) return;
    this.ws.send(JSON.stringify(event));
    if (this.ws.bufferedAmount > this.limits.maxBufferedBytes) this.dropSlowReader();
  }

  close(ending: SessionEnding | GatewayEnding, reason: string): void {
    if (this.closing) return;
    this.closing = true;
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(CLOSE_CODES[ending], reason);
  }

  /** Server shutdown. */
  shutdown(): void {
    this.close('server_shutdown', 'server shutting down');
  }

  private onFrame(data: WebSocket.RawData, isBinary: boolean): void {
    const session = this.session;
    if (!session || this.closing) return;
    if (isBinary) {
      session.rejectFrame('Binary frames are not supported; send JSON text frames.');
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawText(data));
    } catch (err) {
      session.rejectFrame(`Invalid JSON: ${(err as Error).message}`);
      return;
    }
    this.pending++;
    if (!this.paused && this.pending >= this.limits.maxPendingEvents) {
      this.paused = true;
      this.ws.pause();
    }
    void session.handle(parsed).finally(() => {
      this.pending--;
      if (this.paused && this.pending <= this.limits.maxPendingEvents / 2) {
        this.paused = false;
        this.ws.resume();
      }
    });
  }

  private dropSlowReader(): void {
    this.logger.warn({ bufferedBytes: this.ws.bufferedAmount }, 'dropping a realtime client that does not read its events');
    this.close('slow_reader', 'client is not reading events fast enough');
    // The close frame queues behind the unread data; a client that never reads never sees it.
    setTimeout(() => this.ws.terminate(), SLOW_READER_GRACE_MS).unref();
  }
}

function rawText(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
