import { element } from './dom.js';

/**
 * The turn readout: from the end of the user's turn to the first sound (or text) of the reply, measured
 * at the browser. The end of speech is the last moment the microphone carried speech (above -34 dBFS,
 * realtime-levels.ts), by the same rule on both transports: WebRTC's meter on the call's microphone,
 * the WebSocket's captured chunks. Not the server's `speech_stopped.audio_end_ms`: that is its
 * detector's judgement, which on the recorded sentences falls from 220 ms before to 160 ms after the
 * end of the last word (docs/benchmarks.md, "The end of speech"): it would hide part of the pause
 * the user hears, or add to it. A microphone too quiet to pass the meter during the turn falls back to it
 * (WebSocket: when the append carrying `audio_end_ms` left; WebRTC: when the server said so).
 */
export class TurnLatency {
  /** When the user's turn ended (performance.now()), until the reply's first audio or text. */
  private endedAt: number | null = null;
  private kind: 'spoken' | 'typed' = 'spoken';
  /** Milliseconds of microphone audio sent, and when each append left, to date the end of speech. */
  private sentMs = 0;
  private readonly sentAt: Array<{ ms: number; at: number }> = [];
  /** When the microphone last carried speech (both transports), and (WebRTC) whether a reply's first sound is awaited. */
  lastVoiceAt = 0;
  /** When the previous turn ended: voice metered before it belongs to that turn. */
  private previousEndAt = 0;
  awaitingReplySound = false;

  constructor(
    private readonly list: HTMLUListElement,
    private readonly mode: HTMLSelectElement,
  ) {}

  /** WebSocket: `samples` of microphone audio at `rate` just left. */
  sent(samples: number, rate: number): void {
    this.sentMs += (samples / rate) * 1000;
    this.sentAt.push({ ms: this.sentMs, at: performance.now() });
    if (this.sentAt.length > 3000) this.sentAt.splice(0, 1000);
  }

  /**
   * The server heard the user stop (at `audioEndMs` of the input); the page's own meter dates it.
   * Returns the moment taken as the end of speech (performance.now() time).
   */
  speechStopped(audioEndMs: number, webrtc: boolean): number {
    const now = performance.now();
    const sent = webrtc ? undefined : this.sentAt.find((s) => s.ms >= audioEndMs);
    const endedAt = this.lastVoiceAt > this.previousEndAt ? this.lastVoiceAt : (sent?.at ?? now);
    this.endedAt = endedAt;
    this.previousEndAt = now;
    this.awaitingReplySound = webrtc && this.mode.value === 'audio';
    this.kind = 'spoken';
    return endedAt;
  }

  /**
   * The user sent a typed turn: the reply is timed from now. Over WebRTC with spoken replies, to the
   * first sound on the reply track's meter (as a spoken turn's), since no audio event reaches the page.
   */
  typed(webrtc: boolean): void {
    this.endedAt = performance.now();
    this.kind = 'typed';
    this.awaitingReplySound = webrtc && this.mode.value === 'audio';
  }

  /** The reply's first sound or text at `soundAt`: one line in the readout, once per turn. */
  record(soundAt: number): void {
    if (this.endedAt === null) return;
    const ms = Math.max(0, Math.round(soundAt - this.endedAt));
    this.list.append(
      element('li', {
        'data-latency-ms': String(ms),
        text: `${this.kind} turn: ${ms} ms to first ${this.mode.value === 'audio' ? 'audio' : 'text'}`,
      }),
    );
    this.endedAt = null;
  }

  /** A new session starts with an empty readout. */
  clear(): void {
    this.list.replaceChildren();
    this.sentMs = 0;
    this.sentAt.length = 0;
    this.endedAt = null;
    this.lastVoiceAt = 0;
    this.previousEndAt = 0;
  }
}
