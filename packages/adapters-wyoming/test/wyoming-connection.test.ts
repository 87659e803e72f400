import { expect } from 'chai';
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import {
  TranscribeAudio,
  silentLogger,
  type AudioCodec,
  type DetailedTranscript,
  type PcmAudio,
  type Principal,
  type SynthesizeSpeech,
  type Transcriber,
  type VoiceCatalog,
} from '@svc/core';
import { encodeEvent } from '../src/framing/event-encoder.js';
import { EventParser } from '../src/framing/event-parser.js';
import type { WyomingEvent } from '../src/framing/wyoming-event.js';
import type { WyomingLimits, WyomingServices } from '../src/ports.js';
import { WyomingConnection } from '../src/server/wyoming-connection.js';

const LIMITS: WyomingLimits = {
  maxLineBytes: 64 * 1024,
  maxDataBytes: 64 * 1024,
  maxPayloadBytes: 1024 * 1024,
  maxAudioSeconds: 30,
  maxConnections: 4,
  idleTimeoutMs: 10_000,
};

/** Hears every recording as the same words, and keeps what it was given. */
class FixedTranscriber implements Transcriber {
  readonly name = 'fixed';
  readonly heard: Array<{ samples: number; language: string | null; principal: Principal }> = [];
  async transcribe(audio: PcmAudio, options: { language: string | null; principal: Principal }): Promise<DetailedTranscript> {
    this.heard.push({ samples: audio.samples.length, language: options.language, principal: options.principal });
    return { text: 'turn on the light', language: options.language, duration: audio.samples.length / audio.sampleRate, segments: [] };
  }
}

/** A client over a real loopback socket, reading the server's events as they come. */
class Client {
  readonly events: WyomingEvent[] = [];
  readonly closed: Promise<void>;
  private readonly parser = new EventParser(LIMITS);
  private waiter: (() => void) | null = null;
  constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.events.push(...this.parser.push(chunk));
      this.waiter?.();
    });
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.once('close', () => this.waiter?.());
  }
  send(type: string, data?: Record<string, unknown>, payload?: Uint8Array): void {
    this.socket.write(encodeEvent(type, data, payload));
  }
  /** Waits for an event of `type` (an event, not a sleep); fails if the socket closes first. */
  async next(type: string): Promise<WyomingEvent> {
    for (;;) {
      const found = this.events.find((e) => e.type === type);
      if (found) return found;
      if (this.socket.destroyed || this.socket.readableEnded)
        throw new Error(`closed before '${type}'; got ${this.events.map((e) => `${e.type} ${JSON.stringify(e.data)}`).join(', ')}`);
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
  }
}

/**
 * WyomingConnection's state machine in process: a real TCP socket on loopback and the real
 * transcription use case, with an in-memory recognizer and no speech engine. Each protocol
 * mistake must come back as one `error` event carrying the service's identifier, then a close.
 */
describe('WyomingConnection: the protocol state machine (loopback socket, in-memory recognizer)', () => {
  let server: Server;
  let port = 0;
  let transcriber: FixedTranscriber;
  let allowed = true;
  const connections: WyomingConnection[] = [];

  before(async () => {
    const codec = {} as AudioCodec; // live streams never decode files
    server = createServer((socket) => {
      const services: WyomingServices = {
        speech: {} as SynthesizeSpeech,
        sampleRate: 22050,
        catalog: { list: () => [], aliases: () => [], isPreset: () => false, get: () => undefined } as unknown as VoiceCatalog,
        transcription: new TranscribeAudio(codec, transcriber, { maxDurationSeconds: 30 }),
        voices: { list: async () => [], exists: async () => false },
        identity: { principal: async () => null },
        rateLimiter: { take: () => (allowed ? { allowed: true, retryAfterSeconds: 0 } : { allowed: false, retryAfterSeconds: 7 }) },
        logger: silentLogger,
        program: { name: 'svc', version: 'test' },
      };
      connections.push(new WyomingConnection(socket, services, LIMITS));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    for (const c of connections) c.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => {
    transcriber = new FixedTranscriber();
    allowed = true;
  });

  async function connect(): Promise<Client> {
    const socket = createConnection({ port, host: '127.0.0.1' });
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    return new Client(socket);
  }

  /** Sends `events`, expects one error event with `code`, then the close. */
  async function refused(events: Array<[string, Record<string, unknown>?, Uint8Array?]>, code: string): Promise<string> {
    const c = await connect();
    for (const [type, data, payload] of events) c.send(type, data, payload);
    const error = await c.next('error');
    expect(error.data.code, JSON.stringify(error.data)).to.equal(code);
    await c.closed;
    expect(c.events.filter((e) => e.type === 'error')).to.have.length(1);
    return String(error.data.text);
  }

  it('ping is answered with pong (its text echoed), and the connection stays open for more', async () => {
    const c = await connect();
    c.send('ping', { text: 'one' });
    expect((await c.next('pong')).data).to.deep.equal({ text: 'one' });
    c.send('describe');
    const info = await c.next('info');
    expect(info.data).to.have.property('asr');
    expect(c.socket.destroyed).to.equal(false);
    c.socket.end();
    await c.closed;
  });

  it('a recording: transcribe (language), audio-start, chunks, audio-stop -> one transcript, as the anonymous principal', async () => {
    const c = await connect();
    const format = { rate: 16000, width: 2, channels: 1 };
    c.send('transcribe', { language: 'en' });
    c.send('audio-start', format);
    for (let i = 0; i < 5; i++) c.send('audio-chunk', format, new Uint8Array(3200));
    c.send('audio-stop');
    expect((await c.next('transcript')).data).to.include({ text: 'turn on the light' });
    expect(transcriber.heard).to.have.length(1);
    expect(transcriber.heard[0]).to.deep.include({ samples: 8000, language: 'en' });
    expect(transcriber.heard[0]!.principal.apiKeyId).to.equal('wyoming');
    c.socket.end();
    await c.closed;
  });

  it('transcribe then audio-stop without audio is an empty transcript, not an error', async () => {
    const c = await connect();
    c.send('transcribe', { language: 'en' });
    c.send('audio-stop');
    expect((await c.next('transcript')).data).to.deep.include({ text: '' });
    expect(transcriber.heard).to.deep.equal([]);
    c.socket.end();
    await c.closed;
  });

  for (const [label, data] of [
    ['no data', undefined],
    ['data {}', {}],
  ] as const) {
    it(`a transcribe without a language (${label}) then audio-stop without audio is an empty transcript too`, async () => {
      const c = await connect();
      c.send('transcribe', data);
      c.send('audio-stop');
      expect((await c.next('transcript')).data).to.deep.include({ text: '' });
      expect(c.events.map((e) => e.type)).to.not.include('error');
      expect(c.socket.destroyed).to.equal(false);
      // The connection goes on: a second bare audio-stop (no transcribe pending) is refused.
      c.send('audio-stop');
      expect(String((await c.next('error')).data.text)).to.match(/without a recording/);
      await c.closed;
    });
  }

  it('events out of order are refused with invalid_request_error and the connection is closed', async () => {
    expect(await refused([['audio-stop']], 'invalid_request_error')).to.match(/without a recording/);
    expect(await refused([['synthesize-chunk', { text: 'hi' }]], 'invalid_request_error')).to.match(/outside a stream/);
    expect(await refused([['synthesize-stop']], 'invalid_request_error')).to.match(/outside a stream/);
    const format = { rate: 16000, width: 2, channels: 1 };
    expect(
      await refused(
        [
          ['audio-start', format],
          ['audio-start', format],
        ],
        'invalid_request_error',
      ),
    ).to.match(/while a recording is open/);
    expect(await refused([['audio-start', format], ['transcribe']], 'invalid_request_error')).to.match(/while a recording is open/);
    expect(await refused([['frobnicate']], 'invalid_request_error')).to.match(/Unknown event type 'frobnicate'/);
  });

  it('a line that is not JSON is refused as invalid_json', async () => {
    const c = await connect();
    c.socket.write('this is not json\n');
    expect((await c.next('error')).data.code).to.equal('invalid_json');
    await c.closed;
  });

  it('a recording over the rate limit is refused with rate_limit_exceeded before the recognizer is opened', async () => {
    allowed = false;
    await refused([['audio-start', { rate: 16000, width: 2, channels: 1 }]], 'rate_limit_exceeded');
    expect(transcriber.heard).to.deep.equal([]);
  });

  it('a stream naming a voice that exists nowhere is refused with voice_not_found before any text', async () => {
    expect(await refused([['synthesize-start', { voice: { name: 'voice_nobody' } }]], 'voice_not_found')).to.match(/voice_nobody/);
  });
});
