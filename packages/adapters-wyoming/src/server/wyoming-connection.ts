import type { Socket } from 'node:net';
import {
  InvalidRequestError,
  RateLimitExceededError,
  toServiceError,
  VoiceNotFoundError,
  type Principal,
  type ServiceError,
} from '@svc/core';
import { encodeEvent } from '../framing/event-encoder.js';
import { EventParser } from '../framing/event-parser.js';
import type { WyomingEvent } from '../framing/wyoming-event.js';
import { pcmFormatOf, type PcmFormat } from '../audio/pcm-format.js';
import { infoData } from '../protocol/info.js';
import { checkTextFormat, languageOf, textOf, voiceOf, type VoiceChoice } from '../protocol/requests.js';
import type { WyomingLimits, WyomingRequestRecord, WyomingServices } from '../ports.js';
import { AudioOut } from '../session/audio-out.js';
import type { EventSink } from '../session/event-sink.js';
import { speak, SynthesisStream } from '../session/synthesis.js';
import { TranscriptionRun } from '../session/transcription.js';

/** Who a port without a configured key transcribes as (it names no stored key: nothing of anyone's is reachable). */
export const ANONYMOUS_PRINCIPAL: Principal = { apiKeyId: 'wyoming', name: 'wyoming (no key)' };
/** Registered voices listed in `info` (newest first); any other one can still be named. */
export const MAX_LISTED_REGISTERED_VOICES = 100;
/** Events waiting to be handled before the connection stops reading (TCP then slows the client down). */
const MAX_QUEUED_EVENTS = 32;
/** After an error event, how long a client that does not read may keep the socket. */
const CLOSE_LINGER_MS = 2000;

const HANDLED =
  'describe, ping, synthesize, synthesize-start, synthesize-chunk, synthesize-stop, transcribe, audio-start, audio-chunk, audio-stop';

interface OpenStream {
  stream: SynthesisStream;
  out: AudioOut;
  started: number;
}

interface OpenRecording {
  run: TranscriptionRun;
  started: number;
}

/**
 * One Wyoming client. Events are handled one at a time in order (a slow one holds the next, and the
 * socket stops being read while many wait); a synthesis stream speaks in the background while its
 * chunks keep arriving. Any error is sent as an `error` event (`text`, `code`: the service's error
 * identifiers) and ends this connection only: Home Assistant ignores `error` events and waits for
 * audio, so closing is what tells it. Closing, from either side, aborts whatever the connection
 * still had running (synthesis, a recognizer stream).
 */
export class WyomingConnection implements EventSink {
  private readonly parser: EventParser;
  private readonly abort = new AbortController();
  private readonly queue: WyomingEvent[] = [];
  private pumping = false;
  /** A send is waiting for the client to read (the socket's buffer is full). */
  private awaitingDrain = false;
  private inputEnded = false;
  private failed = false;
  private closed = false;
  private stream: OpenStream | null = null;
  private recording: OpenRecording | null = null;
  /** The last 'transcribe' not yet answered (its language may be null: the engine's default). */
  private transcribeRequest: { language: string | null } | null = null;
  private onIdle: (() => void) | null = null;
  /** The request in progress, so a failure or a departure is recorded with its kind. */
  private current: { kind: WyomingRequestRecord['kind']; started: number; out: AudioOut | null } | null = null;
  /** Resolves once the socket has closed. */
  readonly closedPromise: Promise<void>;

  constructor(
    private readonly socket: Socket,
    private readonly services: WyomingServices,
    private readonly limits: WyomingLimits,
  ) {
    this.parser = new EventParser(limits);
    socket.setNoDelay(true);
    socket.setTimeout(limits.idleTimeoutMs);
    socket.on('timeout', () => this.onQuiet());
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('end', () => {
      this.inputEnded = true;
      void this.pump();
    });
    // A reset or write to a vanished peer: 'close' follows and frees the work.
    socket.on('error', (err) => this.services.logger.debug({ err: err.message }, 'wyoming connection error'));
    this.closedPromise = new Promise((resolve) =>
      socket.once('close', () => {
        this.closed = true;
        this.abort.abort(new Error('the Wyoming client disconnected'));
        this.finishRecord(null);
        this.recording?.run.cancel();
        this.recording = null;
        this.onIdle?.();
        resolve();
      }),
    );
  }

  /** A request is in progress (used at shutdown: idle connections close at once). */
  get busy(): boolean {
    return this.pumping || this.stream !== null || this.recording !== null;
  }

  /** Resolves when nothing is in progress (or the socket closed). */
  idle(): Promise<void> {
    if (!this.busy || this.closed) return Promise.resolve();
    return new Promise((resolve) => (this.onIdle = resolve));
  }

  /** Ends the connection now (shutdown): its work is aborted by the close. */
  destroy(): void {
    this.socket.destroy();
  }

  async send(type: string, data?: Record<string, unknown> | null, payload?: Uint8Array | null): Promise<void> {
    if (this.closed) throw this.abort.signal.reason ?? new Error('closed');
    if (this.socket.write(encodeEvent(type, data, payload))) return;
    // Backpressure: wait until the client has read, or until it is gone.
    this.awaitingDrain = true;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.on('drain', done);
      this.socket.on('close', done);
    });
    this.awaitingDrain = false;
    if (this.closed) throw this.abort.signal.reason ?? new Error('closed');
  }

  /**
   * No traffic either way for the idle timeout. While the server itself is working on a request (a
   * first sentence or a final decode taking long on a busy machine) that is not the client's silence;
   * a client that stops reading what it asked for is.
   */
  private onQuiet(): void {
    const seconds = Math.round(this.limits.idleTimeoutMs / 1000);
    if (this.awaitingDrain) {
      this.fail(new InvalidRequestError(`The client has not read what was sent for ${seconds} s; the connection is closed.`));
      return;
    }
    if (this.pumping || this.stream?.stream.speaking) return;
    this.fail(new InvalidRequestError(`Nothing was sent or received for ${seconds} s; the connection is closed.`));
  }

  private receive(chunk: Buffer): void {
    if (this.failed) return;
    let events: WyomingEvent[];
    try {
      events = this.parser.push(chunk);
    } catch (err) {
      this.fail(err);
      return;
    }
    this.queue.push(...events);
    if (this.queue.length >= MAX_QUEUED_EVENTS) this.socket.pause();
    void this.pump();
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.queue.length > 0 && !this.failed && !this.closed) {
        const event = this.queue.shift()!;
        if (this.queue.length < MAX_QUEUED_EVENTS / 2) this.socket.resume();
        await this.handle(event);
      }
    } catch (err) {
      this.fail(err);
    } finally {
      this.pumping = false;
    }
    if (this.inputEnded && this.queue.length === 0 && !this.failed && !this.closed) this.endInput();
    if (!this.busy) this.onIdle?.();
  }

  /** The client sent its last byte: what it asked for has been answered; an unfinished stream or recording is dropped. */
  private endInput(): void {
    this.recording?.run.cancel();
    this.recording = null;
    this.stream = null;
    this.abort.abort(new Error('the Wyoming client ended its side'));
    this.socket.end();
  }

  private fail(err: unknown): void {
    if (this.failed || this.closed) return;
    this.failed = true;
    const error = toServiceError(err);
    const log = this.services.logger;
    if (error.serverFault)
      log.error({ err: err instanceof Error ? err.message : String(err), code: error.identifier }, 'wyoming request failed');
    else log.info({ code: error.identifier, message: error.message }, 'wyoming request refused');
    this.finishRecord(error);
    this.socket.write(encodeEvent('error', { text: error.message, code: error.identifier }));
    this.abort.abort(error);
    this.recording?.run.cancel();
    this.socket.end();
    setTimeout(() => this.socket.destroy(), CLOSE_LINGER_MS).unref();
  }

  private async handle(event: WyomingEvent): Promise<void> {
    const { type, data } = event;
    switch (type) {
      case 'describe':
        return this.describe();
      case 'ping':
        return this.send('pong', typeof data.text === 'string' ? { text: data.text } : null);
      case 'synthesize':
        // Inside a stream, the whole text comes again for older servers: it is spoken already.
        if (this.stream) return;
        return this.synthesize(data);
      case 'synthesize-start':
        return this.startStream(data);
      case 'synthesize-chunk':
        return this.openStream(type).stream.push(textOf(data, type));
      case 'synthesize-stop':
        return this.stopStream();
      case 'transcribe':
        if (this.recording) throw new InvalidRequestError("'transcribe' while a recording is open: send 'audio-stop' first.");
        this.transcribeRequest = { language: languageOf(data.language, 'transcribe.language') };
        return;
      case 'audio-start':
        if (this.recording) throw new InvalidRequestError("'audio-start' while a recording is open: send 'audio-stop' first.");
        return this.startRecording(pcmFormatOf(data, type));
      case 'audio-chunk': {
        const format = pcmFormatOf(data, type);
        // Clients may skip 'audio-start' (the chunk says its format).
        if (!this.recording) await this.startRecording(format);
        return this.recording!.run.write(format, event.payload);
      }
      case 'audio-stop':
        return this.stopRecording();
      default:
        throw new InvalidRequestError(`Unknown event type '${type.slice(0, 64)}': this server handles ${HANDLED}.`);
    }
  }

  private async describe(): Promise<void> {
    const started = performance.now();
    const principal = await this.services.identity.principal();
    const registered = principal ? await this.services.voices.list(principal, MAX_LISTED_REGISTERED_VOICES) : [];
    const presets = this.services.catalog.list();
    await this.send(
      'info',
      infoData({
        program: this.services.program,
        presets,
        aliases: this.services.catalog.aliases(),
        registered,
        recognizer: this.services.transcription.describe(),
        fallbackLanguages: [...new Set(presets.map((v) => v.language))],
      }),
    );
    this.record({ kind: 'describe', outcome: 'ok', started, audioSeconds: 0 });
  }

  private async synthesize(data: Record<string, unknown>): Promise<void> {
    const started = performance.now();
    checkTextFormat(data, 'synthesize');
    const text = textOf(data, 'synthesize');
    const voice = voiceOf(data);
    const principal = await this.admit('speech');
    const out = new AudioOut(this, this.services.sampleRate);
    this.current = { kind: 'synthesize', started, out };
    await speak(this.services.speech, text, voice, principal, out, this.abort.signal);
    await out.stop();
    this.current = null;
    this.record({ kind: 'synthesize', outcome: 'ok', started, audioSeconds: out.seconds });
  }

  private async startStream(data: Record<string, unknown>): Promise<void> {
    if (this.stream) throw new InvalidRequestError("'synthesize-start' while a stream is open: send 'synthesize-stop' first.");
    checkTextFormat(data, 'synthesize-start');
    const voice = voiceOf(data);
    const principal = await this.admit('speech');
    await this.checkVoice(voice, principal);
    const out = new AudioOut(this, this.services.sampleRate);
    const stream = new SynthesisStream((text, place) => speak(this.services.speech, text, voice, principal, out, this.abort.signal, place));
    // A piece that fails fails the connection at once, not only at the stop.
    stream.done.catch((err: unknown) => this.fail(err));
    this.stream = { stream, out, started: performance.now() };
    this.current = { kind: 'synthesize-stream', started: this.stream.started, out };
  }

  private async stopStream(): Promise<void> {
    const { stream, out, started } = this.openStream('synthesize-stop');
    stream.stop();
    await stream.done;
    await out.stop();
    await this.send('synthesize-stopped');
    this.stream = null;
    this.current = null;
    this.record({ kind: 'synthesize-stream', outcome: 'ok', started, audioSeconds: out.seconds });
  }

  private openStream(event: string): OpenStream {
    if (!this.stream) throw new InvalidRequestError(`'${event}' outside a stream: send 'synthesize-start' first.`);
    return this.stream;
  }

  /** A stream's voice is checked before its first text arrives (a one-shot request finds out before its first audio). */
  private async checkVoice(voice: VoiceChoice, principal: Principal | null): Promise<void> {
    const name = voice.name;
    if (name === null || this.services.catalog.isPreset(name) || this.services.catalog.get(name)) return;
    if (principal && (await this.services.voices.exists(principal, name))) return;
    throw new VoiceNotFoundError(name);
  }

  private async startRecording(format: PcmFormat): Promise<void> {
    const started = performance.now();
    const principal = (await this.admit('transcriptions')) ?? ANONYMOUS_PRINCIPAL;
    const language = this.transcribeRequest?.language ?? null;
    const transcription = this.services.transcription;
    const live = transcription.openStream(
      principal,
      { language, sampleRate: format.rate, maxDurationSeconds: this.limits.maxAudioSeconds },
      this.abort.signal,
    );
    const partials = transcription.describe()?.partialResults ?? false;
    this.recording = { run: new TranscriptionRun(live, format, partials, language, this), started };
    this.current = { kind: 'transcribe', started, out: null };
  }

  private async stopRecording(): Promise<void> {
    if (!this.recording) {
      // 'transcribe' then 'audio-stop' without audio: nothing was said.
      if (this.transcribeRequest === null)
        throw new InvalidRequestError("'audio-stop' without a recording: send 'audio-start' and 'audio-chunk's first.");
      this.transcribeRequest = null;
      return this.send('transcript', { text: '' });
    }
    const { run, started } = this.recording;
    await run.finish();
    this.recording = null;
    this.transcribeRequest = null;
    this.current = null;
    this.record({ kind: 'transcribe', outcome: 'ok', started, audioSeconds: run.seconds });
  }

  /** The port's principal for a request, counted in the key's REST bucket (`speech` or `transcriptions`). */
  private async admit(bucket: 'speech' | 'transcriptions'): Promise<Principal | null> {
    const principal = await this.services.identity.principal();
    const decision = await this.services.rateLimiter.take(`${bucket}:${(principal ?? ANONYMOUS_PRINCIPAL).apiKeyId}`);
    if (!decision.allowed) throw new RateLimitExceededError(Math.max(1, Math.ceil(decision.retryAfterSeconds)));
    return principal;
  }

  /** Records the request in progress as failed (`error`) or abandoned by the client (null). */
  private finishRecord(error: ServiceError | null): void {
    const current = this.current;
    if (!current) return;
    this.current = null;
    const audioSeconds = current.out?.seconds ?? this.recording?.run.seconds ?? 0;
    this.record({
      kind: current.kind,
      outcome: error ? 'error' : 'aborted',
      started: current.started,
      audioSeconds,
      ...(error ? { code: error.identifier } : {}),
    });
  }

  private record(r: {
    kind: WyomingRequestRecord['kind'];
    outcome: WyomingRequestRecord['outcome'];
    started: number;
    audioSeconds: number;
    code?: string;
  }): void {
    const seconds = (performance.now() - r.started) / 1000;
    this.services.observer?.request({ kind: r.kind, outcome: r.outcome, seconds, audioSeconds: r.audioSeconds });
    if (r.kind !== 'describe' || r.outcome !== 'ok') {
      this.services.logger.info(
        {
          kind: r.kind,
          outcome: r.outcome,
          ms: Math.round(seconds * 1000),
          audioSeconds: Math.round(r.audioSeconds * 100) / 100,
          ...(r.code ? { code: r.code } : {}),
        },
        'wyoming request',
      );
    }
  }
}
