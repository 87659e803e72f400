import type { Principal } from '../../src/auth/api-key.js';
import type { QuotaGuard } from '../../src/shared/rate-limiter.js';
import type {
  ClientSecretRecord,
  ClientSecretRepository,
  LanguageModel,
  LanguageModelEvent,
  LanguageModelRequest,
  RealtimeOutput,
  RealtimeServerEvent,
  RealtimeVoiceDirectory,
  ReplyAudioPlayout,
  ReplyAudioTrack,
  ReplySpeaker,
  Resampler,
  ResamplerStream,
  SessionEnding,
  ReplySpeechRequest,
  SpeechRecognizer,
  VoiceActivityDetector,
  VoiceActivityEvent,
  VoiceActivityOptions,
  VoiceActivityStream,
} from '../../src/realtime/index.js';
import type { PcmAudio } from '../../src/shared/audio.js';
import type { Clock } from '../../src/shared/clock.js';

/** Collects server events and the close, like a WebSocket would carry them (audio deltas base64-encoded, as a transport writes them). */
export class CollectingOutput implements RealtimeOutput {
  events: RealtimeServerEvent[] = [];
  closed: { ending: SessionEnding; reason: string } | null = null;
  private cursor = 0;
  send(event: RealtimeServerEvent): void {
    if (this.closed) throw new Error(`event ${event.type} sent after close`);
    // The engine hands audio over as bytes (a view of its samples): encode it now, as a transport does.
    this.events.push(event.delta instanceof Uint8Array ? { ...event, delta: Buffer.from(event.delta).toString('base64') } : event);
  }
  close(ending: SessionEnding, reason: string): void {
    if (this.closed) throw new Error('closed twice');
    this.closed = { ending, reason };
  }
  /** Forgets everything received so far (the session set-up of a test). */
  reset(): void {
    this.events = [];
    this.cursor = 0;
  }
  types(): string[] {
    return this.events.map((e) => e.type);
  }
  /** Events since the previous call. */
  take(): RealtimeServerEvent[] {
    const out = this.events.slice(this.cursor);
    this.cursor = this.events.length;
    return out;
  }
  last(type: string): RealtimeServerEvent {
    const found = [...this.events].reverse().find((e) => e.type === type);
    if (!found) throw new Error(`no ${type} event among ${this.types().join(', ')}`);
    return found;
  }
  all(type: string): RealtimeServerEvent[] {
    return this.events.filter((e) => e.type === type);
  }
}

/** Lets queued promise chains and background tasks run to completion. */
export async function flush(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

type Script = LanguageModelEvent[] | ((request: LanguageModelRequest) => LanguageModelEvent[]);

/**
 * A language model that plays a script. `holdAfter` pauses the stream after that many events
 * until `release()` (or the request is aborted) so tests can cancel mid-response.
 */
export class ScriptedLanguageModel implements LanguageModel {
  readonly id = 'scripted';
  requests: LanguageModelRequest[] = [];
  holdAfter: number | null = null;
  failAfter: { count: number; error: Error } | null = null;
  private releaseHold: (() => void) | null = null;

  constructor(
    public script: Script = [
      { type: 'text', delta: 'Hello' },
      { type: 'text', delta: ' there.' },
    ],
    public contextWindowTokens = 100_000,
  ) {}

  release(): void {
    this.releaseHold?.();
  }

  async *stream(request: LanguageModelRequest): AsyncIterable<LanguageModelEvent> {
    this.requests.push(request);
    const events = typeof this.script === 'function' ? this.script(request) : this.script;
    for (let i = 0; i < events.length; i++) {
      if (this.failAfter && i === this.failAfter.count) throw this.failAfter.error;
      if (this.holdAfter !== null && i === this.holdAfter) {
        await new Promise<void>((resolve) => {
          this.releaseHold = resolve;
          request.signal.addEventListener('abort', () => resolve(), { once: true });
        });
        if (request.signal.aborted) return;
      }
      await Promise.resolve();
      yield events[i]!;
    }
    if (this.failAfter && this.failAfter.count >= events.length) throw this.failAfter.error;
  }
}

export class FakeVoiceDirectory implements RealtimeVoiceDirectory {
  lookups: string[] = [];
  constructor(private readonly known: string[] = ['slt', 'voice_abc123']) {}
  async exists(voice: string, _principal: Principal): Promise<boolean> {
    this.lookups.push(voice);
    return this.known.includes(voice);
  }
}

/** A budget of units per key; unlimited when no budget is given. */
export class CountingQuota implements QuotaGuard {
  used = new Map<string, number>();
  calls: { apiKeyId: string; resource: string; units: number }[] = [];
  constructor(private readonly budget: number | null = null) {}
  async consume(apiKeyId: string, resource: string, units: number) {
    this.calls.push({ apiKeyId, resource, units });
    const next = (this.used.get(apiKeyId) ?? 0) + units;
    if (this.budget !== null && next > this.budget) {
      return { allowed: false, message: 'Spending cap reached for this key.' };
    }
    this.used.set(apiKeyId, next);
    return { allowed: true };
  }
}

export class MapClientSecretRepository implements ClientSecretRepository {
  rows: ClientSecretRecord[] = [];
  async insert(record: ClientSecretRecord) {
    this.rows.push({ ...record });
  }
  async findBySecretHash(hash: string) {
    return this.rows.find((r) => r.secretHash === hash) ?? null;
  }
  async deleteExpired(now: number) {
    const before = this.rows.length;
    this.rows = this.rows.filter((r) => r.expiresAt > now);
    return before - this.rows.length;
  }
}

/** Speaks every sentence as `samplesPerChar` samples per character, in two chunks. */
export class FakeReplySpeaker implements ReplySpeaker {
  requests: ReplySpeechRequest[] = [];
  constructor(private readonly samplesPerChar = 10) {}
  async *speak(request: ReplySpeechRequest, signal: AbortSignal): AsyncIterable<Int16Array> {
    this.requests.push(request);
    const total = request.text.length * this.samplesPerChar;
    const half = Math.floor(total / 2);
    for (const n of [half, total - half]) {
      if (signal.aborted) return;
      await Promise.resolve();
      yield new Int16Array(n).fill(1000);
    }
  }
}

export class FakeRecognizer implements SpeechRecognizer {
  calls: { samples: number; sampleRate: number; language: string | null }[] = [];
  constructor(public text = 'what time is it') {}
  async transcribe(audio: PcmAudio, options: { language: string | null }) {
    this.calls.push({ samples: audio.samples.length, sampleRate: audio.sampleRate, language: options.language });
    return { text: this.text };
  }
}

/** A streaming recognizer: records what each turn was fed, and whether it was finished or cancelled. */
export class FakeStreamingRecognizer extends FakeRecognizer {
  /** What `partial` says while the user speaks (default: the first word of the text). */
  partialText: string | null = null;
  /** What each stream's `behindMs` says (audio its partial does not reflect yet). */
  behindMs = 0;
  /** What each stream's `unrecognizedSpeechMs` says (speech after its partial's last word it made no word of). */
  unrecognizedSpeechMs: number | undefined = undefined;
  /** How `finish()` ends instead of with the text: 'hang' never settles (until aborted), an Error rejects. */
  finishAs: 'text' | 'hang' | Error = 'text';
  streams: { samples: number; sampleRate: number; state: 'open' | 'finished' | 'cancelled'; signal: AbortSignal }[] = [];
  openStream(options: { sampleRate: number }, signal: AbortSignal) {
    const record = { samples: 0, sampleRate: options.sampleRate, state: 'open' as 'open' | 'finished' | 'cancelled', signal };
    this.streams.push(record);
    signal.addEventListener('abort', () => {
      if (record.state === 'open') record.state = 'cancelled';
    });
    const text = this.text;
    const behind = () => this.behindMs;
    const unrecognized = () => this.unrecognizedSpeechMs;
    const partialOf = (samples: number) => (this.partialText !== null ? this.partialText : samples > 0 ? text.split(' ')[0]! : '');
    return {
      write: (samples: Int16Array) => void (record.samples += samples.length),
      get partial() {
        return partialOf(record.samples);
      },
      get behindMs() {
        return behind();
      },
      get unrecognizedSpeechMs() {
        return unrecognized();
      },
      finish: async () => {
        if (record.state === 'cancelled') throw new DOMException('aborted', 'AbortError');
        const how = this.finishAs;
        if (how instanceof Error) throw how;
        if (how === 'hang') {
          await new Promise((_, reject) => signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
        }
        record.state = 'finished';
        return { text };
      },
      cancel: () => void (record.state = 'cancelled'),
    };
  }
}

/**
 * Energy detector for tests: samples above 1000 are speech. Reports the start at the exact sample
 * position moved back by the prefix padding (the port's contract), the stop after `silenceMs` of quiet.
 * `hangoverMs`: like a model detector that hears a soft end as speech, the quiet for this long after
 * speech still counts as speech.
 */
export class EnergyVad implements VoiceActivityDetector {
  opened: VoiceActivityOptions[] = [];
  constructor(private readonly hangoverMs = 0) {}
  open(options: VoiceActivityOptions): VoiceActivityStream {
    this.opened.push(options);
    const hangoverMs = this.hangoverMs;
    let position = 0;
    let speaking = false;
    let lastVoice = 0;
    let lastLoud = -Infinity;
    let candidate: number | null = null;
    return {
      push(samples: Int16Array): VoiceActivityEvent[] {
        const events: VoiceActivityEvent[] = [];
        for (let i = 0; i < samples.length; i++, position++) {
          const ms = (position / options.sampleRate) * 1000;
          const loud = Math.abs(samples[i]!) > 1000;
          if (loud) lastLoud = ms;
          if (loud || (speaking && ms - lastLoud < hangoverMs)) {
            // Like the real segmenter: speech must last min_speech_duration before it counts.
            candidate ??= ms;
            if (!speaking && ms - candidate >= options.minSpeechDurationMs) {
              events.push({ type: 'speech_started', audioStartMs: Math.max(0, candidate - options.prefixPaddingMs) });
              speaking = true;
            }
            lastVoice = ms;
          } else if (!speaking) {
            candidate = null;
          } else if (ms - lastVoice >= options.silenceDurationMs) {
            speaking = false;
            candidate = null;
            events.push({ type: 'speech_stopped', audioEndMs: ms });
          }
        }
        return events;
      },
      // Like the Silero segmenter: where speech last sounded in the open segment.
      voicedUntilMs: () => (speaking ? lastVoice : null),
      reset() {
        speaking = false;
        candidate = null;
      },
    };
  }
}

/** A resampler that picks the nearest input sample (enough for tests); counts streams and samples. */
export class NearestResampler implements Resampler {
  opened: { inputRate: number; outputRate: number; samplesIn: number }[] = [];
  open(inputRate: number, outputRate: number): ResamplerStream {
    const record = { inputRate, outputRate, samplesIn: 0 };
    this.opened.push(record);
    let produced = 0;
    return {
      process(samples: Int16Array): Int16Array {
        const start = record.samplesIn;
        record.samplesIn += samples.length;
        const end = Math.floor((record.samplesIn * outputRate) / inputRate);
        const out = new Int16Array(end - produced);
        for (let i = 0; i < out.length; i++)
          out[i] = samples[Math.min(samples.length - 1, Math.floor(((produced + i) * inputRate) / outputRate) - start)]!;
        produced = end;
        return out;
      },
    };
  }
}

/** PCM16 little-endian base64 of `ms` milliseconds at `rate`, all samples = value. */
export function pcmBase64(ms: number, rate = 24000, value = 0): string {
  const n = Math.round((ms / 1000) * rate);
  return Buffer.from(new Int16Array(n).fill(value).buffer).toString('base64');
}

/**
 * A media transport's reply track on the fake clock: it "sends" in real time (like RTP), one
 * playout after another, and lets at most `leadMs` wait unsent. Records what each playout got.
 */
export class FakeReplyTrack implements ReplyAudioTrack {
  readonly sampleRate = 48000;
  playouts: Array<{ writtenMs: number; startedAt: number | null; cleared: boolean; sentAtClear: number | null; pausedAt: number | null }> =
    [];
  /** When the previous playout finishes sending (the next starts after it). */
  private busyUntil = 0;

  constructor(
    private readonly clock: Clock,
    private readonly leadMs = 200,
  ) {}

  open(): ReplyAudioPlayout {
    const record = {
      writtenMs: 0,
      startedAt: null as number | null,
      cleared: false,
      sentAtClear: null as number | null,
      pausedAt: null as number | null,
    };
    this.playouts.push(record);
    const sent = () => {
      if (record.sentAtClear !== null) return record.sentAtClear;
      if (record.startedAt === null) return 0;
      return Math.max(0, Math.min(record.writtenMs, (record.pausedAt ?? this.clock.now()) - record.startedAt));
    };
    // Waiters are checked as the clock moves, and at once on abort or clear.
    const waiters = new Set<() => void>();
    const waitUntil = (done: () => boolean, signal?: AbortSignal) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!done() && !signal?.aborted) return void this.clock.setTimer(10, check);
          waiters.delete(check);
          signal?.removeEventListener('abort', check);
          resolve();
        };
        waiters.add(check);
        signal?.addEventListener('abort', check, { once: true });
        check();
      });
    return {
      write: async (samples, signal) => {
        if (record.cleared) return;
        if (record.startedAt === null) {
          record.startedAt = Math.max(this.clock.now(), this.busyUntil);
        }
        record.writtenMs += (samples.length / this.sampleRate) * 1000;
        this.busyUntil = record.startedAt + record.writtenMs;
        await waitUntil(() => record.cleared || record.writtenMs - sent() <= this.leadMs, signal);
      },
      writtenMs: () => record.writtenMs,
      sentMs: sent,
      finish: () => waitUntil(() => record.cleared || sent() >= record.writtenMs),
      clear: () => {
        if (record.cleared) return;
        record.sentAtClear = sent();
        record.cleared = true;
        this.busyUntil = this.clock.now();
        for (const check of [...waiters]) check();
      },
      // A paused playout sends nothing: its sent position stops, and moves on from there on resume.
      pause: () => {
        record.pausedAt ??= this.clock.now();
      },
      resume: () => {
        if (record.pausedAt === null) return;
        const pausedFor = this.clock.now() - record.pausedAt;
        if (record.startedAt !== null) record.startedAt += pausedFor;
        this.busyUntil += pausedFor;
        record.pausedAt = null;
      },
    };
  }
}
