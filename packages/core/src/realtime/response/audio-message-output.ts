import { encodeBase64 } from '../../shared/base64.js';
import { pcmDurationMs, type ResponseAudioEncoder } from '../audio/response-audio-encoder.js';
import { SentenceChunker } from '../audio/sentence-chunker.js';
import type { ItemEntry } from '../conversation/conversation.js';
import { snapshotItem, type ItemStatus, type MessageItem } from '../conversation/items.js';
import type { ReplySpeaker } from '../ports/audio-pipeline.js';
import { abortable, ResponseAborted } from './abortable.js';
import type { OutputContext } from './output-context.js';

export interface SpokenReplySettings {
  speaker: ReplySpeaker | null;
  /** Null when the output format cannot be encoded here (the transcript is still sent). */
  encoder: ResponseAudioEncoder | null;
  voice: string;
  speed: number;
}

/**
 * An assistant message spoken aloud (`output_modalities: ["audio"]`). The transcript streams as
 * tokens arrive; complete sentences go to the ReplySpeaker one at a time, and each finished
 * sentence is announced with the extension event `response.output_audio_transcript.length`
 * carrying the audio length up to its end, which is what truncation cuts at.
 */
export class AudioMessageOutput {
  readonly item: MessageItem;
  private readonly entry: ItemEntry;
  private readonly part: { type: 'output_audio'; transcript: string } = { type: 'output_audio', transcript: '' };
  private readonly chunker = new SentenceChunker();
  private speech: Promise<void> = Promise.resolve();
  private speechBroken = false;
  private audioMs = 0;
  private spokenChars = 0;
  private finished = false;

  constructor(
    private readonly ctx: OutputContext,
    readonly outputIndex: number,
    private readonly settings: SpokenReplySettings,
  ) {
    this.item = { id: ctx.newId('item_'), object: 'realtime.item', type: 'message', status: 'in_progress', role: 'assistant', content: [] };
    const { previousItemId, entry } = ctx.conversation.insert(this.item, null, { audio: { durationMs: 0, marks: [] } });
    this.entry = entry;
    ctx.emit({ type: 'response.output_item.added', response_id: ctx.responseId, output_index: outputIndex, item: snapshotItem(this.item) });
    ctx.emit({ type: 'conversation.item.added', previous_item_id: previousItemId, item: snapshotItem(this.item) });
    this.item.content.push(this.part);
    ctx.emit({ ...this.partEvent('response.content_part.added'), part: { type: 'audio', transcript: '' } });
  }

  get isFinished(): boolean {
    return this.finished;
  }

  delta(text: string): void {
    if (this.finished || text === '') return;
    this.part.transcript += text;
    this.ctx.emit({ ...this.partEvent('response.output_audio_transcript.delta'), delta: text });
    for (const sentence of this.chunker.push(text)) this.enqueue(sentence);
  }

  async finish(status: ItemStatus): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    const rest = this.chunker.flush();
    if (rest && status === 'completed') this.enqueue(rest);
    await this.speech;
    if (!this.ctx.signal.aborted && this.settings.encoder && !this.speechBroken) {
      for (const bytes of this.settings.encoder.flush()) this.sendAudio(bytes);
    }
    this.entry.audio = { durationMs: Math.round(this.audioMs), marks: this.entry.audio?.marks ?? [] };
    this.ctx.emit(this.partEvent('response.output_audio.done'));
    this.ctx.emit({ ...this.partEvent('response.output_audio_transcript.done'), transcript: this.part.transcript });
    this.ctx.emit({ ...this.partEvent('response.content_part.done'), part: { type: 'audio', transcript: this.part.transcript } });
    this.item.status = status;
    this.ctx.emit({ type: 'response.output_item.done', response_id: this.ctx.responseId, output_index: this.outputIndex, item: snapshotItem(this.item) });
  }

  private enqueue(sentence: string): void {
    this.speech = this.speech.then(() => this.speak(sentence));
  }

  private async speak(sentence: string): Promise<void> {
    const { speaker, encoder } = this.settings;
    if (!speaker || !encoder || this.speechBroken || this.ctx.signal.aborted) return;
    try {
      const request = { text: sentence, voice: this.settings.voice, principal: this.ctx.principal, sampleRate: encoder.sampleRate, speed: this.settings.speed };
      for await (const pcm of abortable(speaker.speak(request, this.ctx.signal), this.ctx.signal)) {
        for (const bytes of encoder.encode(pcm)) this.sendAudio(bytes);
        this.audioMs += pcmDurationMs(pcm.length, encoder.sampleRate);
      }
    } catch (err) {
      if (err instanceof ResponseAborted || this.ctx.signal.aborted) return;
      // A failing synthesizer must not end the response: the transcript still arrives.
      this.speechBroken = true;
      this.ctx.logger.warn({ err: String(err) }, 'reply speech synthesis failed');
      this.ctx.reportError(err);
      return;
    }
    const found = this.part.transcript.indexOf(sentence, this.spokenChars);
    this.spokenChars = found >= 0 ? found + sentence.length : this.part.transcript.length;
    const lengthMs = Math.round(this.audioMs);
    this.entry.audio?.marks.push({ endMs: lengthMs, textLength: this.spokenChars });
    this.ctx.emit({ ...this.partEvent('response.output_audio_transcript.length'), delta: sentence, length_ms: lengthMs });
  }

  private sendAudio(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.ctx.emit({ ...this.partEvent('response.output_audio.delta'), delta: encodeBase64(bytes) });
  }

  private partEvent(type: string) {
    return { type, response_id: this.ctx.responseId, item_id: this.item.id, output_index: this.outputIndex, content_index: 0 };
  }
}
