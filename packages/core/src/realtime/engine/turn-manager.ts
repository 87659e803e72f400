import { ChildAbortController } from '../../shared/child-abort-controller.js';
import type { CapturedAudio } from '../audio/input-audio-buffer.js';
import type { LaggedRecognitionFeed } from '../audio/lagged-recognition-feed.js';
import { snapshotItem, type MessageItem } from '../conversation/items.js';
import { invalidRequest, realtimeErrors } from '../protocol/realtime-error.js';
import { BargeIn, type BargeInResponses } from './barge-in.js';
import { PITCH_CONTEXT_MS, pitchCues, type PitchCues } from '../audio/ending-pitch.js';
import { judgeHeardWords, SEMANTIC_PAUSE_MS, type SemanticTurnEnd } from './semantic-turn-end.js';
import { voiceQuietSince } from '../audio/voice-quiet-since.js';
import type { TurnSpeculation } from './turn-speculation.js';
import type { SpeculativeReply } from '../response/speculative-reply.js';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';
import type { Conversation } from '../conversation/conversation.js';
import type { TurnEvents, TurnInput } from './input-pipeline.js';
import type { SessionEvents, SessionState } from './session-ports.js';
import type { TurnTranscription } from './turn-transcription.js';
import type { EndOfTurnModel, EndOfTurnVerdict } from '../ports/end-of-turn-model.js';

/** A commit needs at least this much audio, as in the API the protocol follows. */
export const MIN_COMMIT_MS = 100;

export interface TurnManagerDeps {
  clock: Clock;
  logger: Logger;
  conversation: Conversation;
  session: SessionState;
  events: SessionEvents;
  /** The captured input (the InputPipeline). */
  input: TurnInput;
  transcription: TurnTranscription;
  /** Barge-in pauses or interrupts, a detected turn creates a response. */
  responses: BargeInResponses & {
    readonly activeResponse: unknown;
    readonly manualTurns: boolean;
    create(rawResponse: unknown, prepared: SpeculativeReply | null): Promise<void>;
    /** Speech started: a spoken reply is likely soon. */
    replyLikelySoon(): void;
  };
  /** Detected speech or a user turn: restarts the idle timer. */
  userSpoke(): void;
  /** A transcript arrived: background summarization may be due. */
  conversationChanged(): void;
  /** semantic_vad's end-of-turn rule. */
  semantic: SemanticTurnEnd;
  /** The reply begun while a pause is being decided. */
  speculation: TurnSpeculation;
  /** semantic_vad: the operator's learned end-of-turn judge, asked at a pause the rule would wait out. */
  endOfTurnModel?: EndOfTurnModel;
  /** Told what became of each question to it (the metrics). */
  turnModelJudged?(verdict: EndOfTurnVerdict): void;
}

/** Input that has not moved for this long has stopped: a waiting semantic_vad turn then ends by the clock. */
const INPUT_STALL_MS = 100;

/**
 * server_vad: silence after speech for this long (semantic_vad's pause) begins the reply to the
 * words so far, while the turn still has `silence_duration_ms` to wait before it ends.
 */
const SPECULATION_PAUSE_MS = SEMANTIC_PAUSE_MS;
/**
 * semantic_vad: silence after speech for this long (three of the detector's 32 ms frames) begins
 * the reply, before the pause is judged: a turn that ends at the pause then has its first clause
 * ready (begun at the pause itself, a long first sentence was still being synthesized when the turn
 * ended; docs/benchmarks.md, "The pause a person hears").
 */
const SEMANTIC_SPECULATION_PAUSE_MS = 96;

/** The detector's frame (Silero's 32 ms): it has stopped hearing speech once a frame passed without it. */
const DETECTOR_FRAME_MS = 32;
/** The recent audio (ms) whose quietest frames are the room's level when judging where the voice went quiet. */
const QUIET_WINDOW_MS = 1400;

/**
 * How long (ms of silence after the pause) a waiting turn is judged again as the recognizer decodes
 * the silence: it reports the speech it made no word of after its last word only once it has decoded
 * some silence after it (its next 100 ms piece or two), and a soft last word can be that late.
 */
const REJUDGE_WITHIN_MS = 300;

/** A semantic_vad turn waiting for more silence before it ends. */
interface PendingEnd {
  /** Where the speech ended (the turn's end if no speech follows). */
  audioEndMs: number;
  /** Where on the input's timeline the pause was judged. */
  reportedAtMs: number;
  /** Where on the input's timeline the wait is over. */
  dueMs: number;
  /**
   * The pause judged again (the extra wait from reportedAtMs) with the recognizer's newer words and
   * speech after them; the sooner end wins. Called once the recognizer has decoded as far as the
   * pause, then as it decodes the silence after it, up to REJUDGE_WITHIN_MS of it.
   */
  rejudge?: () => number;
  cancel: () => void;
}

/** A user turn in progress (server VAD): recognized while the user speaks. */
interface TurnInProgress {
  itemId: string;
  startMs: number;
  /** Where the speech itself began (startMs without the prefix padding): voiced time counts from here. */
  onsetMs: number;
  /** Where the detector last heard speech in this turn (null: it does not say; the input's end counts). */
  voicedUntilMs: number | null;
  /** Where the speech ended before the pause the speculation answers (null: no such pause now). */
  pauseAtMs: number | null;
  /** semantic_vad: the detector's end of speech whose pause was last judged from where the voice went quiet (once each). */
  quietJudgedForMs: number | null;
  /** A child of the session's signal: the turn's recognition stops with the turn or the session. */
  abort: ChildAbortController;
  /** Null when the recognizer cannot stream (the turn is then transcribed in one go). */
  recognition: LaggedRecognitionFeed | null;
}

/**
 * The user's turns, from the pipeline's turn events or a client's commit: `speech_started` (and
 * barge-in over a reply still sounding), `speech_stopped` (semantic_vad may wait for more), the
 * committed user item, its transcription, and the response that answers it. `input_audio_buffer.
 * commit / clear` land here too.
 */
export class TurnManager implements TurnEvents {
  private speech: TurnInProgress | null = null;
  /** semantic_vad: silence was reported but the words so far say the user is not done yet. */
  private pendingEnd: PendingEnd | null = null;
  /** Speech over a reply: pause, judge, then cancel or resume. */
  private readonly bargeIn: BargeIn;

  constructor(private readonly deps: TurnManagerDeps) {
    this.bargeIn = new BargeIn(deps.responses, deps.clock, deps.logger);
  }

  get inTurn(): boolean {
    return this.speech !== null;
  }

  heard(samples: Int16Array): void {
    this.speech?.recognition?.write(samples);
  }

  async speechStarted(audioStartMs: number): Promise<void> {
    if (this.pendingEnd) {
      // The user went on after a pause semantic_vad judged unfinished: the same turn continues.
      this.pendingEnd.cancel();
      this.pendingEnd = null;
      this.deps.speculation.discard();
      this.deps.userSpoke();
      return;
    }
    if (this.speech) return;
    this.deps.speculation.reset();
    this.deps.responses.replyLikelySoon();
    const { session, events } = this.deps;
    const abort = new ChildAbortController(session.signal);
    // The recognizer starts from the padded onset already held (at the analysis rate).
    const recognition = this.deps.transcription.open(this.deps.input, abort.signal, audioStartMs);
    const onsetMs = audioStartMs === 0 ? 0 : audioStartMs + this.prefixPaddingMs();
    this.speech = {
      itemId: events.newId('item_'),
      startMs: audioStartMs,
      onsetMs,
      voicedUntilMs: null,
      pauseAtMs: null,
      quietJudgedForMs: null,
      abort,
      recognition,
    };
    this.deps.userSpoke();
    events.emit({ type: 'input_audio_buffer.speech_started', audio_start_ms: Math.round(audioStartMs), item_id: this.speech.itemId });
    // A reply still sounding pauses here and is cancelled only once the speech proves an
    // interruption (at once with min_interruption_duration 0; interrupt_response has no effect).
    const input = session.config.audio.input;
    await this.bargeIn.speechStarted(input.turn_detection!, input.transcription?.language ?? null, this.speech.itemId);
  }

  async speechStopped(audioEndMs: number): Promise<void> {
    if (!this.speech || this.pendingEnd) return;
    const verdict = this.bargeIn.speechEnded(this.speechSoFar(Math.min(audioEndMs, this.speech.voicedUntilMs ?? audioEndMs)));
    if (verdict && !verdict.interrupt) {
      // speech_stopped first, then the reply's audio flows again.
      this.dropFalseInterruption(audioEndMs);
      await verdict.settle();
      return;
    }
    await verdict?.settle();
    // The turn may be ending here: its reply is begun while that is decided.
    const td = this.deps.session.config.audio.input.turn_detection;
    const reportedSilenceMs = td ? this.deps.semantic.detectorSilenceMs(td) : 0;
    this.deps.speculation.consider(
      this.speech.recognition?.partial ?? '',
      this.speech.recognition?.behindMs,
      reportedSilenceMs,
      audioEndMs - this.speech.onsetMs,
    );
    if (td?.type === 'semantic_vad') {
      const { recognition, onsetMs } = this.speech;
      const partial = recognition?.partial ?? '';
      const cues = this.pitchBefore(audioEndMs);
      const pitch = cues.ending;
      const progress = {
        behindMs: recognition?.behindMs,
        speechMs: audioEndMs - onsetMs,
        unrecognizedSpeechMs: recognition?.unrecognizedSpeechMs,
      };
      const waitMs = this.deps.semantic.extraWaitMs(td, partial, pitch, progress);
      // what semantic_vad judged at the pause, for an operator asking why a turn waited
      this.deps.logger.debug(
        {
          itemId: this.speech.itemId,
          partial,
          pitch,
          medianHz: Math.round(cues.medianHz),
          endingRatio: cues.endingRatio,
          creakFrames: cues.creakFrames,
          ...progress,
          waitMs,
        },
        'semantic_vad: pause judged',
      );
      if (waitMs > 0) {
        let lastWaitMs = waitMs;
        const rejudge = recognition
          ? () => {
              const again = {
                behindMs: recognition.behindMs,
                speechMs: progress.speechMs,
                unrecognizedSpeechMs: recognition.unrecognizedSpeechMs,
              };
              const waitAgainMs = this.deps.semantic.extraWaitMs(td, recognition.partial, pitch, again);
              if (waitAgainMs !== lastWaitMs)
                this.deps.logger.debug(
                  { itemId: this.speech?.itemId, partial: recognition.partial, pitch, ...again, waitMs: waitAgainMs },
                  'semantic_vad: pause judged again, the recognizer heard more',
                );
              lastWaitMs = waitAgainMs;
              return waitAgainMs;
            }
          : undefined;
        this.waitForMoreSilence(audioEndMs, waitMs, rejudge);
        if (judgeHeardWords(partial, progress, reportedSilenceMs) !== 'unfinished') this.askEndOfTurnModel(this.speech);
        return;
      }
    }
    await this.endTurn(audioEndMs);
  }

  async judged(voicedUntilMs: number | null, inputEndMs: number): Promise<void> {
    const speech = this.speech;
    if (!speech) return;
    // semantic_vad's wait is silence heard, on the input's own timeline (a loaded server judges
    // the audio later than it arrives: a wall-clock wait would end a turn whose speech already resumed).
    const pending = this.pendingEnd;
    // Once the recognizer has decoded as far as the pause, and while it decodes the silence after
    // it, its words may say more (a soft last word it made no word of): the pause is judged again.
    if (pending?.rejudge && inputEndMs - (speech.recognition?.behindMs ?? 0) >= pending.reportedAtMs) {
      const waitMs = pending.rejudge();
      if (inputEndMs - pending.reportedAtMs >= REJUDGE_WITHIN_MS) pending.rejudge = undefined;
      pending.dueMs = Math.min(pending.dueMs, pending.reportedAtMs + waitMs);
    }
    if (pending && (this.deps.input.analysis?.endMs ?? 0) >= pending.dueMs) {
      this.endPending();
      return;
    }
    speech.voicedUntilMs = voicedUntilMs ?? speech.voicedUntilMs;
    const quietAtMs = this.voiceQuietAt(speech);
    if (!pending && quietAtMs !== null && (await this.endWhereTheVoiceWentQuiet(speech, quietAtMs))) return;
    this.followPause(speech, inputEndMs, quietAtMs);
    // A paused reply: is the speech so far a real interruption?
    if (this.bargeIn.pending) await this.bargeIn.heard(this.speechSoFar(speech.voicedUntilMs ?? inputEndMs));
  }

  /** A commit, a clear, the detector closed or the session's end: the speech being followed is dropped. */
  speechDropped(): void {
    this.deps.speculation.reset();
    this.bargeIn.abandon();
    this.pendingEnd?.cancel();
    this.pendingEnd = null;
    this.speech?.abort.abort();
    this.speech = null;
  }

  /** `input_audio_buffer.commit`: what is held becomes a user turn (manual turns, or a forced end). */
  commit(): void {
    const { responses, input } = this.deps;
    if (responses.activeResponse && responses.manualTurns) throw realtimeErrors.voiceOutputTaskOngoing();
    const ms = input.heldMs;
    if (ms < MIN_COMMIT_MS) {
      throw invalidRequest(
        'input_audio_buffer_commit_empty',
        `Error committing input audio buffer: buffer too small. Expected at least ${MIN_COMMIT_MS}ms of audio, but buffer only has ${ms.toFixed(2)}ms of audio.`,
      );
    }
    // During detected speech the committed item is the one speech_started announced (as in the
    // modelled API, no speech_stopped follows: the commit ends the speech); its streaming recognition
    // is cancelled and the whole buffer is recognized in one go.
    const itemId = this.speech?.itemId ?? this.deps.events.newId('item_');
    this.speechDropped();
    input.resetDetector();
    this.deps.userSpoke();
    this.addUserTurn(itemId, input.takeAll(), new ChildAbortController(this.deps.session.signal), null);
  }

  /** `input_audio_buffer.clear`. */
  clear(): void {
    this.deps.input.clear();
    this.speechDropped();
    this.deps.events.emit({ type: 'input_audio_buffer.cleared' });
  }

  /**
   * semantic_vad: the turn ends once `waitMs` more silence has been judged, unless speech resumes.
   * The input's timeline decides; the timer only covers input that stops arriving (a client that
   * stops streaming after it spoke): when it fires and the input has not moved since it was armed,
   * the turn ends.
   */
  private waitForMoreSilence(audioEndMs: number, waitMs: number, rejudge?: () => number): void {
    const reportedAtMs = this.deps.input.analysis?.endMs ?? audioEndMs;
    const pending: PendingEnd = { audioEndMs, reportedAtMs, dueMs: reportedAtMs + waitMs, rejudge, cancel: () => undefined };
    let seenMs = reportedAtMs;
    const arm = (ms: number) => {
      pending.cancel = this.deps.clock.setTimer(ms, () => {
        const nowMs = this.deps.input.analysis?.endMs ?? seenMs;
        if (nowMs > seenMs) {
          // Still arriving: judged() ends the turn once the detector has heard the silence.
          seenMs = nowMs;
          arm(Math.max(pending.dueMs - nowMs, INPUT_STALL_MS));
          return;
        }
        if (this.pendingEnd === pending) this.endPending();
      });
    };
    arm(waitMs);
    this.pendingEnd = pending;
  }

  /**
   * Speculation during a pause: once SEMANTIC_SPECULATION_PAUSE_MS (semantic_vad, and while it waits
   * out a pause) or SPECULATION_PAUSE_MS (server_vad) of silence follows the speech, begin the reply to the words so far (anew
   * when they change: the recognizer is still catching up); speech that resumes discards it.
   */
  private followPause(speech: TurnInProgress, inputEndMs: number, quietAtMs: number | null): void {
    const { speculation } = this.deps;
    if (!speculation.enabled) return;
    if (this.pendingEnd) {
      speculation.consider(
        speech.recognition?.partial ?? '',
        speech.recognition?.behindMs,
        inputEndMs - this.pendingEnd.audioEndMs,
        this.pendingEnd.audioEndMs - speech.onsetMs,
      );
      return;
    }
    // semantic_vad: from where the voice went quiet, when the detector heard speech after it.
    const voicedMs = quietAtMs ?? speech.voicedUntilMs;
    if (voicedMs === null) return;
    const semantic = this.deps.session.config.audio.input.turn_detection?.type === 'semantic_vad';
    if (inputEndMs - voicedMs < (semantic ? SEMANTIC_SPECULATION_PAUSE_MS : SPECULATION_PAUSE_MS)) {
      if (speech.pauseAtMs !== null) speculation.discard();
      speech.pauseAtMs = null;
      return;
    }
    if (speech.pauseAtMs !== voicedMs) {
      speech.pauseAtMs = voicedMs;
      // The recognizer runs behind the audio (server_vad): it hears the speech's end now.
      speech.recognition?.catchUp(voicedMs);
    }
    speculation.consider(speech.recognition?.partial ?? '', speech.recognition?.behindMs, inputEndMs - voicedMs, voicedMs - speech.onsetMs);
  }

  /**
   * semantic_vad: where the voice itself went quiet (voiceQuietSince), when that is before where the
   * detector last heard speech and the detector has stopped hearing it too; otherwise null. The
   * detector can count a soft end (a breath, the room's noise) as speech after the last word, and
   * its pause then starts late ("... amiable himself": 160 ms): the reply is begun counting from
   * here (followPause), and the pause may be judged from here (endWhereTheVoiceWentQuiet). Not while
   * the detector hears speech: counted from the quiet within words (a closure, a soft consonant),
   * replies were begun and thrown away at every word (21 of 22 in one bench run).
   */
  private voiceQuietAt(speech: TurnInProgress): number | null {
    const td = this.deps.session.config.audio.input.turn_detection;
    const analysis = this.deps.input.analysis;
    const voicedMs = speech.voicedUntilMs;
    if (td?.type !== 'semantic_vad' || !analysis || voicedMs === null) return null;
    const nowMs = analysis.endMs;
    // The detector hears speech now, or its own pause is here: its end stands.
    if (nowMs - voicedMs < DETECTOR_FRAME_MS || nowMs - voicedMs >= this.deps.semantic.detectorSilenceMs(td)) return null;
    const from = Math.max(speech.startMs, nowMs - QUIET_WINDOW_MS);
    const quietAtMs = voiceQuietSince(analysis.since(from), analysis.sampleRate, from);
    return quietAtMs !== null && quietAtMs < voicedMs ? quietAtMs : null;
  }

  /**
   * semantic_vad: once the voice has been quiet for the pause (voiceQuietAt) while the detector still
   * counts its own, the pause is judged then, as the detector's pause would be (the pitch up to the
   * detector's end of speech), once per detector end, by the same rule (judgeHeardWords) but only
   * once the recognizer has caught up: words that read as finished (or unfinished words followed by
   * speech it made no word of, after long enough speech), said with a falling voice, end the turn
   * there, at the voice's end; anything else waits for the detector's own pause, judged as always.
   */
  private async endWhereTheVoiceWentQuiet(speech: TurnInProgress, quietAtMs: number): Promise<boolean> {
    const td = this.deps.session.config.audio.input.turn_detection!;
    const nowMs = this.deps.input.analysis!.endMs;
    const voicedMs = speech.voicedUntilMs!;
    if (nowMs - quietAtMs < this.deps.semantic.detectorSilenceMs(td) || speech.quietJudgedForMs === voicedMs || this.bargeIn.pending)
      return false;
    speech.quietJudgedForMs = voicedMs;
    const recognition = speech.recognition;
    const partial = recognition?.partial ?? '';
    // The pitch as the detector's pause would judge it: the voice's last frames hold the fall.
    const cues = this.pitchBefore(voicedMs);
    // Not for a recognizer still behind: its words may yet end the phrase, or go on.
    const caughtUp = recognition !== null && recognition.behindMs <= nowMs - quietAtMs;
    const unrecognizedSpeechMs = recognition?.unrecognizedSpeechMs;
    const judged = caughtUp
      ? judgeHeardWords(partial, { speechMs: voicedMs - speech.onsetMs, unrecognizedSpeechMs }, nowMs - quietAtMs)
      : null;
    const ends = judged === 'finished' && cues.ending === 'falling';
    this.deps.logger.debug(
      {
        itemId: speech.itemId,
        partial,
        pitch: cues.ending,
        quietAtMs,
        detectorVoicedUntilMs: voicedMs,
        caughtUp,
        unrecognizedSpeechMs,
        ends,
      },
      'semantic_vad: pause judged where the voice went quiet',
    );
    if (!ends) return false;
    // The detector is still counting its own pause: it starts afresh, so speech that follows is a new turn.
    this.deps.input.resetDetector();
    // The turn keeps the audio the detector heard as speech (the voice's soft tail), as server_vad's would.
    await this.endTurn(quietAtMs, voicedMs);
    return true;
  }

  /**
   * semantic_vad with an end-of-turn model: the pause just set waiting (pendingEnd) is put to the
   * model, on the turn's audio up to now (its last `contextMs`, the pause's silence included). A
   * finished verdict ends the turn at once if that pause is still waiting: speech that resumed
   * meanwhile, or a turn that ended anyway, leaves the verdict unused. A model that fails leaves
   * the rule's wait as it was.
   */
  private askEndOfTurnModel(speech: TurnInProgress): void {
    const model = this.deps.endOfTurnModel;
    const analysis = this.deps.input.analysis;
    const pending = this.pendingEnd;
    if (!model || !analysis || !pending) return;
    const samples = analysis.since(Math.max(speech.startMs, analysis.endMs - model.contextMs));
    const askedAt = this.deps.clock.now();
    model.finishedProbability(samples, analysis.sampleRate, speech.abort.signal).then(
      (probability) => {
        const still = this.pendingEnd === pending;
        const ends = still && probability >= model.threshold;
        this.deps.logger.debug(
          {
            itemId: speech.itemId,
            probability,
            threshold: model.threshold,
            ms: this.deps.clock.now() - askedAt,
            stillWaiting: still,
            ends,
          },
          'semantic_vad: end-of-turn model judged the pause',
        );
        this.deps.turnModelJudged?.(ends ? 'ended' : still ? 'waited' : 'late');
        if (ends) this.endPending();
      },
      (err: unknown) => {
        if (speech.abort.signal.aborted) return;
        this.deps.turnModelJudged?.('failed');
        this.deps.logger.warn(
          { itemId: speech.itemId, err: (err as Error).message },
          'semantic_vad: the end-of-turn model failed; the rule decides',
        );
      },
    );
  }

  private endPending(): void {
    const pending = this.pendingEnd!;
    this.pendingEnd = null;
    pending.cancel();
    void this.endTurn(pending.audioEndMs);
  }

  /** How the voice ended before the pause at `audioEndMs` (unknown without the analysis input). */
  private pitchBefore(audioEndMs: number): PitchCues {
    const analysis = this.deps.input.analysis;
    if (!analysis) return { ending: 'unknown', medianHz: 0, endingRatio: NaN, creakFrames: 0, voicedFrames: 0 };
    const from = Math.max(this.speech!.onsetMs, audioEndMs - PITCH_CONTEXT_MS);
    const samples = analysis.since(from);
    const speechSamples = Math.max(0, Math.round(((audioEndMs - from) / 1000) * analysis.sampleRate));
    return pitchCues(samples.subarray(0, speechSamples), analysis.sampleRate);
  }

  /** How long the user has voiced speech up to `voicedUntilMs`, and what the recognizer heard. */
  private speechSoFar(voicedUntilMs: number | null): { voicedMs: number; partial: string } {
    const speech = this.speech!;
    const until = voicedUntilMs ?? speech.onsetMs;
    return { voicedMs: Math.max(0, until - speech.onsetMs), partial: speech.recognition?.partial ?? '' };
  }

  /**
   * Speech over a reply that proved no interruption (a backchannel, a cough): the reply resumed,
   * and the speech is no turn. `speech_stopped` closes what `speech_started` opened; nothing is
   * committed, its audio and recognition are dropped.
   */
  private dropFalseInterruption(audioEndMs: number): void {
    const speech = this.speech!;
    this.speech = null;
    this.deps.speculation.reset();
    this.deps.events.emit({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: Math.round(audioEndMs), item_id: speech.itemId });
    speech.abort.abort();
    this.deps.input.dropBefore(audioEndMs);
  }

  /**
   * speech_stopped: the turn is committed, transcribed (only the final pass is left) and answered.
   * `heardUntilMs`: where the captured audio ends, when the turn ended before the detector's own end
   * of speech (a voice gone quiet under a detector that still hears speech).
   */
  private async endTurn(audioEndMs: number, heardUntilMs = audioEndMs): Promise<void> {
    const speech = this.speech;
    const { session, events } = this.deps;
    if (!speech || session.closed) return;
    this.speech = null;
    events.emit({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: Math.round(audioEndMs), item_id: speech.itemId });
    // The detector's start already includes prefix_padding_ms (the port's contract, as the
    // modelled API's audio_start_ms does), so the turn is captured from there.
    const captured = this.deps.input.takeRange(speech.startMs, heardUntilMs);
    // The recognizer hears the rest of the speech (not the silence that ended it) and runs its final pass.
    const prepared = this.deps.speculation.take();
    this.addUserTurn(speech.itemId, captured, speech.abort, speech.recognition?.finish(heardUntilMs) ?? null);
    // A response always follows a detected turn (create_response is accepted, no effect).
    try {
      await this.deps.responses.create(undefined, prepared);
    } catch (err) {
      events.reportError(err, null);
    }
  }

  /** `input_audio_buffer.committed`, the user item, and its transcription in the background. */
  private addUserTurn(
    itemId: string,
    captured: CapturedAudio,
    turn: ChildAbortController,
    recognized: Promise<{ text: string }> | null,
  ): void {
    const { conversation, events } = this.deps;
    const previousItemId = conversation.lastId();
    events.emit({ type: 'input_audio_buffer.committed', previous_item_id: previousItemId, item_id: itemId });
    const item: MessageItem = {
      id: itemId,
      object: 'realtime.item',
      type: 'message',
      status: 'completed',
      role: 'user',
      // Empty until known, then the words (a string always: see ContentPart).
      content: [{ type: 'input_audio', transcript: '' }],
    };
    const { entry } = conversation.insert(item, previousItemId);
    events.emit({ type: 'conversation.item.added', previous_item_id: previousItemId, item: snapshotItem(item) });
    // Never rejects: responses wait on it.
    entry.transcriptReady = this.deps.transcription
      .transcribe(entry, item, captured, recognized, turn)
      .catch((err) => this.deps.logger.error({ err: String(err) }, 'transcription step failed'))
      .finally(() => {
        delete entry.transcriptReady;
        this.deps.conversationChanged();
      });
  }

  private prefixPaddingMs(): number {
    return this.deps.session.config.audio.input.turn_detection?.prefix_padding_ms ?? 0;
  }
}
