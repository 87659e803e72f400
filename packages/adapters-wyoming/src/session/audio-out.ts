import type { EventSink } from './event-sink.js';

/** Samples per `audio-chunk`, as the reference servers send them (about 46 ms at 22.05 kHz). */
export const SAMPLES_PER_CHUNK = 1024;
const WIDTH = 2;

/**
 * One audio stream to the client: `audio-start`, the speech as `audio-chunk`s of 16-bit mono PCM
 * (each with the format, as the protocol requires, and its time in ms), then `audio-stop`. Each
 * write waits for the connection (backpressure), so synthesis never runs far ahead of a slow reader.
 */
export class AudioOut {
  private started = false;
  private samples = 0;
  private readonly format: Record<string, number>;

  constructor(
    private readonly sink: EventSink,
    readonly rate: number,
  ) {
    this.format = { rate, width: WIDTH, channels: 1 };
  }

  get seconds(): number {
    return this.samples / this.rate;
  }

  /** True once `audio-start` went out (the first audio, or `stop()` without any). */
  get hasStarted(): boolean {
    return this.started;
  }

  async write(pcm: Uint8Array): Promise<void> {
    await this.start();
    const step = SAMPLES_PER_CHUNK * WIDTH;
    for (let at = 0; at + WIDTH <= pcm.length; at += step) {
      const slice = pcm.subarray(at, Math.min(pcm.length, at + step));
      await this.sink.send('audio-chunk', { ...this.format, timestamp: this.timestamp() }, slice);
      this.samples += Math.floor(slice.length / WIDTH);
    }
  }

  async stop(): Promise<void> {
    await this.start();
    await this.sink.send('audio-stop', { timestamp: this.timestamp() });
  }

  private async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.sink.send('audio-start', { ...this.format, timestamp: 0 });
  }

  private timestamp(): number {
    return Math.round((this.samples / this.rate) * 1000);
  }
}
