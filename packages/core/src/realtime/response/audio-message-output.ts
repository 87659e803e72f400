import { isRefusal } from '../../shared/errors.js';
import { AUDIO_DELTA_MS } from '../audio/playback-clock.js';
import { pcmDurationMs } from '../audio/response-audio-encoder.js';
import { SentenceChunker } from '../audio/sentence-chunker.js';
import { wordMarks, type AudioMark } from '../audio/word-marks.js';
import type { ItemEntry } from '../conversation/conversation.js';
import { snapshotItem, type ItemStatus, type MessageItem } from '../conversation/items.js';
import type { ReplySpeaker } from '../ports/audio-pipeline.js';
import { EDGE_SILENCE_MS, JOIN_SILENCE_MS, type SpeechEdges } from '../../speech/join-silence.js';
import { abortable, ResponseAborted } from './abortable.js';
import type { OutputContext } from './output-context.js';
import type { ReplyAudioOutput } from './reply-audio-output.js';

export interface SpokenReplySettings {
  speaker: ReplySpeaker | null;
  /**
   * Where this message's samples go, given how to send one `response.output_audio.delta` (its
   * bytes; the transport base64-encodes them) when the session's transport carries audio in events. Null when the output format cannot be
   * encoded here (the transcript is still sent).
   */
  audioOutput: (emitDelta: (bytes: Uint8Array) => void) => ReplyAudioOutput | null;
  voice: string;
  speed: number;
}

/** The sentence being spoken: where it starts in the transcript and in the item's audio. */
interface Speaking {
  text: string;
  offset: number;
  startMs: number;
  /** Audio of it synthesized so far (synthesis runs ahead of sending). */
  synthesizedMs: number;
}

/** Speaking rate assumed for a sentence whose synthesis is not finished (about 15 characters a second). */
const DEFAULT_MS_PER_CHAR = 65;

/**
 * An assistant message spoken aloud (`output_modalities: ["audio"]`). The transcript streams as
 * tokens arrive; complete sentences (the first clause already) go to the ReplySpeaker one at a
 * time, and their samples leave as small deltas (AUDIO_DELTA_MS of audio each, opus one packet per
 * delta) against the playback clock. Each finished sentence is announced with the extension event
 * `response.output_audio_transcript.length` carrying the audio length up to its end; word marks
 * inside it are what truncation (client or barge-in) cuts at.
 */
export class AudioMessageOutput {
  readonly item: MessageItem;
  private readonly entry: ItemEntry;
  private readonly part: { type: 'output_audio'; transcript: string } = { type: 'output_audio', transcript: '' };
  private readonly chunker = new SentenceChunker();
  /** Each queued sentence's completion; the model is held while more than one waits. */
  private readonly queue: Promise<void>[] = [];
  private speech: Promise<void> = Promise.resolve();
  /** Pieces queued so far (the first one opens the reply's audio). */
  private pieces = 0;
  private speechBroken = false;
  private audioMs = 0;
  /** Where this message's audio starts on the response's playback timeline. */
  private playbackOffsetMs: number | null = null;
  private spokenChars = 0;
  private speaking: Speaking | null = null;
  private readonly marks: AudioMark[] = [];
  private finished = false;
  private drained = false;
  /** Paces and sends the samples; knows what the listener heard (null: no audio can be sent). */
  private readonly audio: ReplyAudioOutput | null;

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
    this.audio = settings.audioOutput((delta) => this.ctx.emit({ ...this.partEvent('response.output_audio.delta'), delta }));
  }

  get isFinished(): boolean {
    return this.finished;
  }

  /**
   * Streams model text: the transcript delta leaves at once, speech follows. Resolves when the
   * model may go on: while a sentence is spoken and another waits, the model is not pulled further.
   */
  async delta(text: string): Promise<void> {
    if (this.finished || text === '') return;
    this.part.transcript += text;
    this.ctx.emit({ ...this.partEvent('response.output_audio_transcript.delta'), delta: text });
    for (const sentence of this.chunker.push(text)) this.enqueue(sentence, false);
    if (this.queue.length > 1) await this.queue[this.queue.length - 2];
  }

  /** The model is done: speaks the rest and resolves once every delta has left (paced). */
  async drain(): Promise<void> {
    if (this.drained) return;
    const rest = this.chunker.flush();
    if (rest) this.enqueue(rest, true);
    await this.speech;
    if (this.ctx.signal.aborted) throw new ResponseAborted();
    if (this.audio && !this.speechBroken) this.audio.end();
    this.drained = true;
  }

  /**
   * Closes the item. A cancelled message keeps only what the listener heard by the playback clock:
   * its audio length and its transcript are cut at the last word heard.
   */
  async finish(status: ItemStatus): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    if (status === 'completed') {
      await this.drain().catch(() => undefined);
      this.entry.audio = { durationMs: Math.round(this.audioMs), marks: this.marks };
    } else {
      this.cutAtHeard();
    }
    this.ctx.emit(this.partEvent('response.output_audio.done'));
    this.ctx.emit({ ...this.partEvent('response.output_audio_transcript.done'), transcript: this.part.transcript });
    this.ctx.emit({ ...this.partEvent('response.content_part.done'), part: { type: 'audio', transcript: this.part.transcript } });
    this.item.status = status;
    this.ctx.emit({
      type: 'response.output_item.done',
      response_id: this.ctx.responseId,
      output_index: this.outputIndex,
      item: snapshotItem(this.item),
    });
  }

  /**
   * A completed message whose audio a media track was still sending when it was cut off (barge-in
   * after `response.done`): the item keeps what was sent, announced as `conversation.item.truncated`.
   */
  truncateToHeard(): void {
    if (!this.finished || !this.audio || this.playbackOffsetMs === null) return;
    if (this.audio.heardMs() - this.playbackOffsetMs >= this.audioMs) return;
    this.cutAtHeard();
    const audioEndMs = this.entry.audio?.durationMs ?? 0;
    this.ctx.emit({ type: 'conversation.item.truncated', item_id: this.item.id, content_index: 0, audio_end_ms: audioEndMs });
  }

  private cutAtHeard(): void {
    // Without audio (no speaker, or an unencodable format) nothing was heard, but the text was
    // shown: the transcript stays as streamed.
    if (!this.settings.speaker || !this.audio || this.speechBroken) {
      this.entry.audio = { durationMs: Math.round(this.audioMs), marks: this.marks };
      return;
    }
    const heardMs = this.playbackOffsetMs === null ? 0 : Math.min(this.audioMs, this.audio.heardMs() - this.playbackOffsetMs);
    const marks = [...this.marks];
    if (this.speaking) {
      // Its length is known only once synthesized: until then, estimated from the speaking rate.
      const { text, offset, startMs, synthesizedMs } = this.speaking;
      const lengthMs = Math.max(synthesizedMs, text.length * DEFAULT_MS_PER_CHAR);
      marks.push(...wordMarks(text, offset, startMs, startMs + lengthMs));
    }
    const heard = marks.filter((m) => m.endMs <= heardMs);
    const keepChars = heard.length > 0 ? heard[heard.length - 1]!.textLength : 0;
    this.part.transcript = this.part.transcript.slice(0, keepChars).trim();
    this.entry.audio = { durationMs: Math.max(0, Math.round(heardMs)), marks: heard };
  }

  private enqueue(sentence: string, last: boolean): void {
    const edges = pieceEdges(this.pieces++, last, this.chunker.cutAtClause);
    const done = this.speech.then(() => this.speak(sentence, edges));
    this.speech = done;
    this.queue.push(done);
    void done.then(() => this.queue.splice(this.queue.indexOf(done), 1));
  }

  private async speak(sentence: string, edges: SpeechEdges): Promise<void> {
    const { speaker } = this.settings;
    const audio = this.audio;
    if (!speaker || !audio || this.speechBroken || this.ctx.signal.aborted) return;
    const found = this.part.transcript.indexOf(sentence, this.spokenChars);
    const offset = found >= 0 ? found : this.spokenChars;
    this.speaking = { text: sentence, offset, startMs: this.audioMs, synthesizedMs: 0 };
    try {
      const rate = audio.sampleRate;
      const request = {
        text: sentence,
        voice: this.settings.voice,
        principal: this.ctx.principal,
        sampleRate: rate,
        speed: this.settings.speed,
        edges,
      };
      const slice = Math.round((rate * AUDIO_DELTA_MS) / 1000);
      for await (const pcm of abortable(speaker.speak(request, this.ctx.signal), this.ctx.signal)) {
        this.speaking.synthesizedMs += pcmDurationMs(pcm.length, rate);
        for (let i = 0; i < pcm.length; i += slice) {
          const piece = pcm.subarray(i, i + slice);
          this.playbackOffsetMs ??= audio.positionMs;
          await audio.send(piece, this.ctx.signal);
          if (this.ctx.signal.aborted) return;
          this.audioMs += pcmDurationMs(piece.length, rate);
        }
      }
    } catch (err) {
      if (err instanceof ResponseAborted || this.ctx.signal.aborted) return;
      // A failing synthesizer must not end the response: the transcript still arrives.
      this.speechBroken = true;
      if (isRefusal(err)) this.ctx.logger.info({ code: err.identifier }, 'reply speech refused');
      else this.ctx.logger.warn({ err: String(err) }, 'reply speech synthesis failed');
      this.ctx.reportError(err);
      return;
    }
    const startMs = this.speaking.startMs;
    this.speaking = null;
    this.spokenChars = found >= 0 ? found + sentence.length : this.part.transcript.length;
    // Word marks inside the sentence; its end is marked exactly below.
    this.marks.push(...wordMarks(sentence, offset, startMs, this.audioMs).slice(0, -1));
    const lengthMs = Math.round(this.audioMs);
    this.marks.push({ endMs: lengthMs, textLength: this.spokenChars });
    this.ctx.emit({ ...this.partEvent('response.output_audio_transcript.length'), delta: sentence, length_ms: lengthMs });
  }

  private partEvent(type: string) {
    return { type, response_id: this.ctx.responseId, item_id: this.item.id, output_index: this.outputIndex, content_index: 0 };
  }
}

/**
 * The silence kept at the ends of a reply's `index`-th spoken piece: the reply starts and ends with
 * the voice (the engine's padding trimmed), a first clause (`cutAtClause`) joins the rest of its
 * sentence with a comma's pause, and pauses between sentences stay natural.
 */
export function pieceEdges(index: number, last: boolean, cutAtClause: boolean): SpeechEdges {
  return {
    leadingKeepMs: index === 0 ? EDGE_SILENCE_MS : index === 1 && cutAtClause ? JOIN_SILENCE_MS : null,
    trailingKeepMs: last ? EDGE_SILENCE_MS : index === 0 && cutAtClause ? JOIN_SILENCE_MS : null,
  };
}
