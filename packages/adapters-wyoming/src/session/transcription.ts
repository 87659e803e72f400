import { InvalidParameterError, type LiveTranscription } from '@svc/core';
import { PcmInput, sameFormat, type PcmFormat } from '../audio/pcm-format.js';
import type { EventSink } from './event-sink.js';
import { StableWords } from './stable-words.js';

/**
 * One recording (`audio-start`, `audio-chunk`s, `audio-stop`) transcribed while it arrives: each
 * chunk is converted to mono 16-bit and written to the recognizer's stream at the client's rate.
 * With a recognizer that has partial results, the words already certain go out as
 * `transcript-chunk`s inside `transcript-start` ... `transcript-stop`, around the `transcript`
 * every client reads.
 */
export class TranscriptionRun {
  private readonly input: PcmInput;
  private readonly words = new StableWords();
  private streaming = false;

  constructor(
    private readonly live: LiveTranscription,
    readonly format: PcmFormat,
    private readonly partials: boolean,
    private readonly language: string | null,
    private readonly sink: EventSink,
  ) {
    this.input = new PcmInput(format);
  }

  get seconds(): number {
    return this.live.seconds;
  }

  async write(format: PcmFormat, payload: Buffer | null): Promise<void> {
    if (!sameFormat(format, this.format)) {
      throw new InvalidParameterError(
        `An 'audio-chunk' changed the format mid-recording (${describe(format)} after ${describe(this.format)}); send a new 'audio-start' after 'audio-stop'.`,
        'rate',
      );
    }
    if (!payload) return;
    this.live.write(this.input.convert(payload));
    if (!this.partials) return;
    const added = this.words.partial(this.live.partial);
    if (added !== null) await this.chunk(added);
  }

  /** Sends the transcript (and the end of its stream); returns its text. */
  async finish(): Promise<string> {
    const { text } = await this.live.finish();
    if (this.partials) {
      const rest = this.words.final(text);
      if (rest !== null) await this.chunk(rest);
      if (!this.streaming) await this.begin();
    }
    await this.sink.send('transcript', { text, ...(this.language ? { language: this.language } : {}) });
    if (this.streaming) await this.sink.send('transcript-stop');
    return text;
  }

  cancel(): void {
    this.live.cancel();
  }

  private async chunk(text: string): Promise<void> {
    if (!this.streaming) await this.begin();
    await this.sink.send('transcript-chunk', { text });
  }

  private async begin(): Promise<void> {
    this.streaming = true;
    await this.sink.send('transcript-start', this.language ? { language: this.language } : null);
  }
}

const describe = (f: PcmFormat): string => `${f.rate} Hz, ${f.width} bytes, ${f.channels} channel(s)`;
