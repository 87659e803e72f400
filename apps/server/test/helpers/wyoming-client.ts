import { connect, type Socket } from 'node:net';

/**
 * A Wyoming client written from the protocol description (OHF-Voice/wyoming README), not from the
 * server's code: each event is a JSON header line (`type`, optional `data`, `data_length`,
 * `payload_length`), then `data_length` bytes of JSON merged over `data`, then `payload_length`
 * bytes of payload. It records every event with the time it arrived.
 */
export interface ReceivedEvent {
  type: string;
  data: Record<string, unknown>;
  payload: Buffer | null;
  /** performance.now() when its last byte arrived. */
  at: number;
  /** The header line as received (to check what goes in it). */
  headerLine: string;
}

export interface SendOptions {
  /** Put `data` in the data block (data_length) instead of the header line. */
  dataBlock?: boolean;
}

export class WyomingClient {
  readonly events: ReceivedEvent[] = [];
  /** Resolves when the server has closed the connection (or it broke). */
  readonly closed: Promise<void>;
  private buffer = Buffer.alloc(0);
  private waiters: Array<() => void> = [];
  private ended = false;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.parse();
    });
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.ended = true;
        this.wake();
        resolve();
      }),
    );
  }

  static connect(port: number, host = '127.0.0.1'): Promise<WyomingClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host }, () => {
        socket.off('error', reject);
        resolve(new WyomingClient(socket));
      });
      socket.once('error', reject);
    });
  }

  get isClosed(): boolean {
    return this.ended;
  }

  send(type: string, data?: Record<string, unknown> | null, payload?: Buffer | null, options: SendOptions = {}): void {
    this.socket.write(frame(type, data, payload, options));
  }

  sendRaw(bytes: Buffer | string): void {
    this.socket.write(bytes);
  }

  /** The first event (from `from` on) of that type; rejects on timeout or if the connection closes first. */
  async until(type: string, timeoutMs = 30_000, from = 0): Promise<ReceivedEvent> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const found = this.events.slice(from).find((e) => e.type === type);
      if (found) return found;
      if (this.ended) throw new Error(`connection closed before '${type}' (got: ${this.received()})`);
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`no '${type}' within ${timeoutMs} ms (got: ${this.received()})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The types received so far, with an error's data. */
  private received(): string {
    return this.events.map((e) => (e.type === 'error' ? `error ${JSON.stringify(e.data)}` : e.type)).join(', ');
  }

  of(type: string): ReceivedEvent[] {
    return this.events.filter((e) => e.type === type);
  }

  /** Ends our side and waits for the server to close. */
  async close(): Promise<void> {
    this.socket.end();
    await Promise.race([this.closed, new Promise((r) => setTimeout(r, 2000))]);
    this.socket.destroy();
  }

  /** Vanishes without a goodbye (a reset). */
  destroy(): void {
    this.socket.destroy();
  }

  private parse(): void {
    for (;;) {
      const end = this.buffer.indexOf(0x0a);
      if (end < 0) return;
      const headerLine = this.buffer.subarray(0, end).toString('utf8');
      const header = JSON.parse(headerLine) as {
        type: string;
        data?: Record<string, unknown>;
        data_length?: number;
        payload_length?: number;
      };
      const dataLength = header.data_length ?? 0;
      const payloadLength = header.payload_length ?? 0;
      if (this.buffer.length < end + 1 + dataLength + payloadLength) return;
      let at = end + 1;
      const data = { ...(header.data ?? {}) };
      if (dataLength > 0) Object.assign(data, JSON.parse(this.buffer.subarray(at, at + dataLength).toString('utf8')));
      at += dataLength;
      const payload = payloadLength > 0 ? Buffer.from(this.buffer.subarray(at, at + payloadLength)) : null;
      this.buffer = this.buffer.subarray(at + payloadLength);
      this.events.push({ type: header.type, data, payload, at: performance.now(), headerLine });
      this.wake();
    }
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}

/** One event's bytes. */
export function frame(type: string, data?: Record<string, unknown> | null, payload?: Buffer | null, options: SendOptions = {}): Buffer {
  const header: Record<string, unknown> = { type };
  const parts: Buffer[] = [];
  if (data && options.dataBlock) {
    const block = Buffer.from(JSON.stringify(data));
    header.data_length = block.length;
    parts.push(block);
  } else if (data) header.data = data;
  if (payload && payload.length > 0) {
    header.payload_length = payload.length;
    parts.push(payload);
  }
  return Buffer.concat([Buffer.from(JSON.stringify(header) + '\n'), ...parts]);
}

/** The audio of `audio-chunk` events as 16-bit samples (the server sends width 2, mono). */
export function audioOf(events: ReceivedEvent[]): Int16Array {
  const bytes = Buffer.concat(events.filter((e) => e.type === 'audio-chunk').map((e) => e.payload ?? Buffer.alloc(0)));
  return new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
}

/** Sends `pcm` (16 kHz s16 mono unless told) as `audio-start`, chunks of `samplesPerChunk` frames, `audio-stop`. */
export function sendRecording(
  client: WyomingClient,
  pcm: Buffer,
  format = { rate: 16000, width: 2, channels: 1 },
  samplesPerChunk = 1024,
  stop = true,
): void {
  client.send('audio-start', format);
  const step = samplesPerChunk * format.width * format.channels;
  for (let i = 0; i < pcm.length; i += step) client.send('audio-chunk', format, pcm.subarray(i, i + step));
  if (stop) client.send('audio-stop', {});
}
