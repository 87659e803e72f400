import { isRefusal } from '../../shared/errors.js';
import type { ChildAbortController } from '../../shared/child-abort-controller.js';
import type { CapturedAudio } from '../audio/input-audio-buffer.js';
import { LaggedRecognitionFeed, RECOGNITION_TAIL_MS } from '../audio/lagged-recognition-feed.js';
import type { ItemEntry } from '../conversation/conversation.js';
import type { MessageItem } from '../conversation/items.js';
import { realtimeErrors } from '../protocol/realtime-error.js';
import type { Principal } from '../../auth/api-key.js';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';
import type { RealtimeAudioPorts } from '../ports/audio-pipeline.js';
import type { TurnInput } from './input-pipeline.js';
import type { SessionEvents, SessionState } from './session-ports.js';
import type { SemanticTurnEnd } from './semantic-turn-end.js';

export interface TurnTranscriptionDeps {
  audio: Pick<RealtimeAudioPorts, 'speechRecognizer' | 'opusCodec'>;
  clock: Clock;
  logger: Logger;
  principal: Principal;
  session: SessionState;
  events: SessionEvents;
  /** Whether the item is still in the conversation (a deleted item gets no transcript). */
  hasItem(itemId: string): boolean;
  /** How long after `speech_stopped` a streamed turn's transcript may take before the turn is dropped (with an error). */
  transcriptDeadlineMs: number;
  /** How long the detector waits before it reports a pause (the recognizer is fed that far behind). */
  semantic: Pick<SemanticTurnEnd, 'detectorSilenceMs'>;
}

/** A streamed turn's transcript came too late: the turn is dropped (see transcriptDeadlineMs). */
class TranscriptLate extends Error {}

/**
 * The words of a user turn: streamed while the user speaks (a LaggedRecognitionFeed fed from the
 * padded onset), or transcribed in one go after a commit. Writes the item's transcript and
 * `conversation.item.input_audio_transcription.completed`; a failure is said in an `error`, never
 * hidden, and marks the item so no reply answers words nobody heard.
 */
export class TurnTranscription {
  /** This session as the recognizer's speaker: its turns adapt to each other, never to another session's. */
  private readonly speaker = {};

  constructor(private readonly deps: TurnTranscriptionDeps) {}

  /** The turn's streaming recognition, fed from the padded onset (already held at the analysis rate); null when the recognizer cannot stream. */
  open(input: TurnInput, signal: AbortSignal, startMs: number): LaggedRecognitionFeed | null {
    const recognizer = this.deps.audio.speechRecognizer;
    const analysis = input.analysis;
    if (!recognizer?.openStream || !analysis) return null;
    const config = this.deps.session.config.audio.input;
    const language = config.transcription?.language ?? null;
    const stream = recognizer.openStream(
      { language, principal: this.deps.principal, speaker: this.speaker, sampleRate: analysis.sampleRate },
      signal,
    );
    const onset = analysis.since(startMs);
    // Fed behind by what the detector waits before it reports a pause, less a tail.
    const silenceMs = config.turn_detection ? this.deps.semantic.detectorSilenceMs(config.turn_detection) : 0;
    const feed = new LaggedRecognitionFeed(
      stream,
      analysis.sampleRate,
      analysis.endMs - (onset.length / analysis.sampleRate) * 1000,
      silenceMs - RECOGNITION_TAIL_MS,
    );
    feed.write(onset);
    return feed;
  }

  /** Fills the item's transcript. Never rejects for a recognizer failure (it is reported instead). */
  async transcribe(
    entry: ItemEntry,
    item: MessageItem,
    captured: CapturedAudio,
    recognized: Promise<{ text: string }> | null,
    turn: ChildAbortController,
  ): Promise<void> {
    const { audio, principal, logger, session, events } = this.deps;
    const part = item.content[0] as { type: 'input_audio'; transcript: string };
    const transcription = session.config.audio.input.transcription;
    const recognizer = audio.speechRecognizer;
    const signal = turn.signal;
    let transcript = '';
    try {
      if (!recognizer) {
        // Said, not hidden: the turn is kept, the model hears an empty user turn.
        events.reportError(realtimeErrors.transcriptionUnavailable(item.id), null);
      } else if (recognized) {
        transcript = (await this.withinDeadline(recognized, turn)).text.trim();
      } else {
        let pcm = captured.pcm ? { samples: captured.pcm, sampleRate: captured.sampleRate } : null;
        const format = session.config.audio.input.format;
        if (!pcm && captured.opusPackets && audio.opusCodec && format.type === 'audio/opus') {
          pcm = await audio.opusCodec.decode(captured.opusPackets, format.frame_size_ms);
        }
        if (pcm && pcm.samples.length > 0) {
          transcript = (
            await recognizer.transcribe(pcm, { language: transcription?.language ?? null, principal, speaker: this.speaker }, signal)
          ).text.trim();
        }
      }
    } catch (err) {
      // A turn cancelled by the client (commit, clear) or the session's end: nothing to say.
      if (session.closed || (signal.aborted && !(err instanceof TranscriptLate))) return;
      // Said, never silent: the client hears why this turn gets no reply (docs/realtime.md).
      entry.transcriptionFailed = true;
      if (err instanceof TranscriptLate) {
        logger.warn(
          { itemId: item.id, deadlineMs: this.deps.transcriptDeadlineMs },
          'a realtime turn was dropped: its transcript was late (overloaded)',
        );
        events.reportError(realtimeErrors.turnDroppedOverloaded(item.id, this.deps.transcriptDeadlineMs), null);
      } else if (isRefusal(err)) {
        // A refusal (a limit, a quota) is the client's to read, not a recognizer failure.
        logger.info({ code: err.identifier, itemId: item.id }, 'transcription refused');
        events.reportError(err, null);
      } else {
        logger.warn({ err: String(err), itemId: item.id }, 'transcription failed');
        events.reportError(realtimeErrors.transcriptionFailed(item.id, err instanceof Error ? err.message : String(err)), null);
      }
      // The item keeps an empty transcript; no `.completed` event claims one was made.
      part.transcript = '';
      return;
    }
    if (session.closed || !this.deps.hasItem(entry.item.id)) return;
    part.transcript = transcript;
    if (transcription?.model) {
      events.emit({
        type: 'conversation.item.input_audio_transcription.completed',
        item_id: item.id,
        content_index: 0,
        transcript,
        usage: { type: 'duration', seconds: Math.round(captured.durationMs) / 1000 },
      });
    }
  }

  /**
   * The final result of a streamed turn, or TranscriptLate once transcriptDeadlineMs have passed
   * (the turn's recognition is then aborted: its decoder is freed for turns that can still be answered).
   */
  private withinDeadline<T>(recognized: Promise<T>, turn: ChildAbortController): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const cancel = this.deps.clock.setTimer(this.deps.transcriptDeadlineMs, () => {
        reject(new TranscriptLate());
        turn.abort();
      });
      recognized.then(
        (value) => {
          cancel();
          resolve(value);
        },
        (err: unknown) => {
          cancel();
          reject(err);
        },
      );
    });
  }
}
