import type { PlaybackClock } from '../audio/playback-clock.js';
import { pcmDurationMs, type ResponseAudioEncoder } from '../audio/response-audio-encoder.js';
import type { ReplyAudioPlayout } from '../ports/media-transport.js';

/**
 * Where one spoken message's samples go, and what the listener has heard of them. Two ways:
 * `response.output_audio.delta` events paced against an estimated playback clock (WebSocket), or
 * a media track that sends them in real time and knows exactly what it sent (WebRTC).
 */
export interface ReplyAudioOutput {
  readonly sampleRate: number;
  /** Where the next samples land on the response's audio timeline (ms). */
  readonly positionMs: number;
  /** Sends one slice of samples, paced; returns early when `signal` aborts. */
  send(samples: Int16Array, signal: AbortSignal): Promise<void>;
  /** The message's audio is complete (an encoder flushes its last partial frame). */
  end(): void;
  /** Milliseconds of the response's timeline the listener has heard. */
  heardMs(): number;
}

/**
 * Samples -> `response.output_audio.delta` events in `audio.output.format`, at most the playback
 * clock's lead ahead. The delta carries the format's bytes; the transport base64-encodes them
 * (serverEventJson), so pcm leaves as the samples' own memory, encoded once.
 */
export class DeltaEventAudioOutput implements ReplyAudioOutput {
  constructor(
    private readonly playback: PlaybackClock,
    private readonly encoder: ResponseAudioEncoder,
    private readonly emitDelta: (bytes: Uint8Array) => void,
  ) {}

  get sampleRate(): number {
    return this.encoder.sampleRate;
  }

  get positionMs(): number {
    return this.playback.sentAudioMs;
  }

  async send(samples: Int16Array, signal: AbortSignal): Promise<void> {
    await this.playback.admit(pcmDurationMs(samples.length, this.encoder.sampleRate), signal);
    if (signal.aborted) return;
    for (const bytes of this.encoder.encode(samples)) this.deliver(bytes);
  }

  end(): void {
    for (const bytes of this.encoder.flush()) this.deliver(bytes);
  }

  heardMs(): number {
    return this.playback.heardMs();
  }

  private deliver(bytes: Uint8Array): void {
    if (bytes.length > 0) this.emitDelta(bytes);
  }
}

/** Samples -> the transport's reply track (no delta events); heard = what the track has sent. */
export class MediaTrackAudioOutput implements ReplyAudioOutput {
  constructor(
    readonly sampleRate: number,
    private readonly playout: () => ReplyAudioPlayout,
  ) {}

  get positionMs(): number {
    return this.playout().writtenMs();
  }

  send(samples: Int16Array, signal: AbortSignal): Promise<void> {
    return this.playout().write(samples, signal);
  }

  end(): void {}

  heardMs(): number {
    return this.playout().sentMs();
  }
}
