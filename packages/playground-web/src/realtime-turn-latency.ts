import { element } from './dom.js';

/**
 * The turn readout: from the end of the user's turn to the first sound (or text) of the reply, measured
 * at the browser. The end of speech is when the audio the server heard last left this page (WebSocket:
 * the append that carried it; WebRTC: the last moment the microphone meter carried speech).
 */
export class TurnLatency {
  /** When the user's turn ended (performance.now()), until the reply's first audio or text. */
  private endedAt: number | null = null;
  private kind: 'spoken' | 'typed' = 'spoken';
  /** Milliseconds of microphone audio sent, and when each append left, to date the end of speech. */
  private sentMs = 0;
  private readonly sentAt: Array<{ ms: number; at: number }> = [];
  /** WebRTC: when the microphone last carried speech, and whether a reply's first sound is awaited. */
  lastVoiceAt = 0;
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

  /** The server heard the user stop at `audioEndMs` of the input; over WebRTC, the page's own meter dates it. */
  speechStopped(audioEndMs: number, webrtc: boolean): void {
    const sent = this.sentAt.find((s) => s.ms >= audioEndMs);
    this.endedAt = webrtc ? this.lastVoiceAt || performance.now() : (sent?.at ?? performance.now());
    this.awaitingReplySound = webrtc && this.mode.value === 'audio';
    this.kind = 'spoken';
  }

  typed(): void {
    this.endedAt = performance.now();
    this.kind = 'typed';
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
  }
}
