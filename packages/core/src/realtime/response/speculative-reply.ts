import type { Principal } from '../../auth/api-key.js';
import { ChildAbortController } from '../../shared/child-abort-controller.js';
import { SentenceChunker } from '../audio/sentence-chunker.js';
import type { ReplySpeaker, ReplySpeechRequest } from '../ports/audio-pipeline.js';
import type { LanguageModel, LanguageModelEvent, LanguageModelRequest } from '../ports/language-model.js';
import { abortable } from './abortable.js';
import { pieceEdges } from './audio-message-output.js';

/** How the prepared reply's first piece would be spoken: the session's voice, output rate and speed. */
interface PreparedVoice {
  speaker: ReplySpeaker;
  voice: string;
  sampleRate: number;
  speed: number;
  principal: Principal;
}

/** What became of a reply begun on a guess: sent when the turn ended, or thrown away. */
export type SpeculationOutcome = 'used' | 'discarded';

/** A request without its signal (each side has its own). */
type ModelAsk = Omit<LanguageModelRequest, 'signal'>;

/**
 * Model events pulled ahead at most before the reply is adopted: a reply whose first spoken piece
 * does not come soon (function calls, one long sentence) is not generated further on a guess.
 */
const MAX_PREFETCHED_EVENTS = 256;

/** The words of a transcript, without case or punctuation: a recognizer's partial and final differ in nothing else that matters. */
export function normalizeTranscript(text: string): string {
  return (text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []).join(' ');
}

/**
 * An iterator pulled once and read twice: by the speculation (ahead of need) and then by the
 * response that adopts it (from the first item, then on from the source at its own pace).
 */
class PulledStream<T> {
  readonly items: T[] = [];
  done = false;
  error: unknown = null;
  private inFlight: Promise<void> | null = null;

  constructor(private readonly iterator: AsyncIterator<T>) {}

  /** One more item (a single pull at a time); resolves once it arrived, or the source ended or failed. */
  pull(): Promise<void> {
    if (this.done) return Promise.resolve();
    this.inFlight ??= this.iterator
      .next()
      .then(
        (r) => {
          if (r.done) this.done = true;
          else this.items.push(r.value);
        },
        (err: unknown) => {
          this.error = err;
          this.done = true;
        },
      )
      .finally(() => {
        this.inFlight = null;
      });
    return this.inFlight;
  }

  async *read(): AsyncGenerator<T> {
    for (let i = 0; ;) {
      if (i < this.items.length) {
        yield this.items[i++]!;
      } else if (this.done) {
        if (this.error) throw this.error;
        return;
      } else {
        await this.pull();
      }
    }
  }
}

/**
 * A reply begun before the turn is known to have ended (speculation): the language model asked
 * with the partial transcript as the user's words, and the reply's first piece (a clause or a
 * sentence) synthesized, both held here. It emits nothing and changes nothing: no event, no item,
 * no quota. When the turn ends, the response that answers it is created as usual and asks for its
 * model stream and its first piece; if what it asks is what was prepared (the same request, the
 * user's words normalizing to the same), it is answered from here at once, so its events are
 * exactly those of a response that was not prepared. Otherwise (or when the user went on) the
 * speculation is discarded: its model request and synthesis are aborted.
 */
export class SpeculativeReply {
  private readonly controller: ChildAbortController;
  private readonly model: PulledStream<LanguageModelEvent>;
  private speech: { request: ReplySpeechRequest; audio: PulledStream<Int16Array>; abort: ChildAbortController } | null = null;
  private adopted = false;
  private outcome: SpeculationOutcome | null = null;

  constructor(
    private readonly languageModel: LanguageModel,
    private readonly ask: ModelAsk,
    private readonly voice: PreparedVoice | null,
    sessionSignal: AbortSignal,
    /** The user's words it answers (the partial transcript). */
    readonly transcript: string,
    /** Told once whether it was used or discarded. */
    private readonly settled: (outcome: SpeculationOutcome) => void = () => undefined,
  ) {
    this.controller = new ChildAbortController(sessionSignal);
    const signal = this.controller.signal;
    this.model = new PulledStream(abortable(languageModel.stream({ ...ask, signal }), signal)[Symbol.asyncIterator]());
    void this.prefetch();
  }

  get discarded(): boolean {
    return this.controller.signal.aborted;
  }

  /** The user went on, or the turn's words changed: the model and the synthesis stop. */
  discard(): void {
    this.settle('discarded');
    this.controller.abort();
  }

  private settle(outcome: SpeculationOutcome): void {
    if (this.outcome) return;
    this.outcome = outcome;
    this.settled(outcome);
  }

  /** Discards it unless a response adopted it. */
  release(): void {
    if (!this.adopted) this.discard();
  }

  /**
   * For the response answering the turn: a model whose first stream is answered from here when
   * its request is the prepared one (any other request goes to the real model, and the
   * speculation is discarded), and a speaker whose first piece is answered from here likewise.
   */
  adopt(): { languageModel: LanguageModel; replySpeaker: ReplySpeaker | undefined } {
    this.adopted = true;
    return { languageModel: this.adoptingModel(), replySpeaker: this.voice ? this.adoptingSpeaker(this.voice.speaker) : undefined };
  }

  private adoptingModel(): LanguageModel {
    const real = this.languageModel;
    let asked = false;
    return {
      id: real.id,
      contextWindowTokens: real.contextWindowTokens,
      ...(real.canSummarize === undefined ? {} : { canSummarize: real.canSummarize }),
      stream: (request) => {
        const first = !asked;
        asked = true;
        if (!first || this.discarded || (this.model.done && this.model.error) || !sameAsk(this.ask, request)) {
          this.discard();
          return real.stream(request);
        }
        this.settle('used');
        this.follow(request.signal);
        return this.model.read();
      },
    };
  }

  private adoptingSpeaker(real: ReplySpeaker): ReplySpeaker {
    let asked = false;
    return {
      speak: (request, signal) => {
        const first = !asked;
        asked = true;
        const speech = this.speech;
        if (!first || !speech || speech.abort.signal.aborted || !sameSpeech(speech.request, request)) {
          speech?.abort.abort();
          return real.speak(request, signal);
        }
        this.follow(signal);
        return speech.audio.read();
      },
    };
  }

  /** An adopted reply's work ends with the response that uses it (a cancel, a barge-in). */
  private follow(signal: AbortSignal): void {
    if (signal.aborted) this.discard();
    else signal.addEventListener('abort', () => this.discard(), { once: true });
  }

  /**
   * Pulls the model until the reply's first spoken piece is known (as AudioMessageOutput cuts it:
   * a first clause or sentence, or all of a short reply), and synthesizes that piece.
   */
  private async prefetch(): Promise<void> {
    const chunker = new SentenceChunker();
    let textOnly = true;
    let read = 0;
    while (!this.model.done && !this.adopted && !this.discarded && read < MAX_PREFETCHED_EVENTS) {
      await this.model.pull();
      for (; read < this.model.items.length; read++) {
        const event = this.model.items[read]!;
        if (event.type === 'text') {
          const piece = chunker.push(event.delta)[0];
          if (piece !== undefined) return this.speakFirst(piece, pieceEdges(0, false, chunker.cutAtClause), textOnly);
          continue;
        }
        // A function call closes the message before it (its rest is its last piece); speech that
        // would start after a call is not prepared.
        const rest = chunker.flush();
        if (rest) return this.speakFirst(rest, pieceEdges(0, true, chunker.cutAtClause), textOnly);
        textOnly = false;
      }
    }
    const rest = this.model.done && !this.model.error ? chunker.flush() : null;
    if (rest) this.speakFirst(rest, pieceEdges(0, true, chunker.cutAtClause), textOnly);
  }

  private speakFirst(text: string, edges: ReplySpeechRequest['edges'], beforeAnyCall: boolean): void {
    const voice = this.voice;
    if (!voice || !beforeAnyCall || this.discarded) return;
    const request: ReplySpeechRequest = {
      text,
      voice: voice.voice,
      principal: voice.principal,
      sampleRate: voice.sampleRate,
      speed: voice.speed,
      ...(edges ? { edges } : {}),
    };
    const abort = new ChildAbortController(this.controller.signal);
    const audio = new PulledStream(abortable(voice.speaker.speak(request, abort.signal), abort.signal)[Symbol.asyncIterator]());
    this.speech = { request, audio, abort };
    void (async () => {
      while (!audio.done) await audio.pull();
    })();
  }
}

/** The same model request, the user's words compared by normalizeTranscript. */
function sameAsk(prepared: ModelAsk, asked: LanguageModelRequest): boolean {
  return JSON.stringify(comparable(prepared)) === JSON.stringify(comparable(asked));
}

function comparable(ask: ModelAsk): unknown {
  return {
    messages: ask.messages.map((m) => (m.role === 'user' ? { role: 'user', content: normalizeTranscript(m.content) } : m)),
    tools: ask.tools,
    toolChoice: ask.toolChoice,
    temperature: ask.temperature,
    maxOutputTokens: ask.maxOutputTokens,
  };
}

function sameSpeech(prepared: ReplySpeechRequest, asked: ReplySpeechRequest): boolean {
  return (
    prepared.text === asked.text &&
    prepared.voice === asked.voice &&
    prepared.sampleRate === asked.sampleRate &&
    prepared.speed === asked.speed &&
    prepared.principal.apiKeyId === asked.principal.apiKeyId &&
    JSON.stringify(prepared.edges ?? null) === JSON.stringify(asked.edges ?? null)
  );
}
