import { decodeBase64 } from '../../shared/base64.js';
import { isRefusal } from '../../shared/errors.js';
import { AnalysisInput } from '../audio/analysis-input.js';
import { InputAudioBuffer, type CapturedAudio } from '../audio/input-audio-buffer.js';
import { LaggedRecognitionFeed, RECOGNITION_TAIL_MS } from '../audio/lagged-recognition-feed.js';
import type { ItemEntry } from '../conversation/conversation.js';
import { snapshotItem, type MessageItem } from '../conversation/items.js';
import { ANALYSIS_SAMPLE_RATE, type RecognitionStream, type VoiceActivityEvent, type VoiceActivityStream } from '../ports/audio-pipeline.js';
import { expectString, requireField, type JsonObject } from '../protocol/field-checks.js';
import { invalidRequest, realtimeErrors } from '../protocol/realtime-error.js';
import { formatSampleRate, type AudioFormat, type PcmRate, type RealtimeSessionConfig } from '../session/session-config.js';
import { BargeIn, type BargeInResponses } from './barge-in.js';
import { semanticEndWaitMs } from './semantic-turn-end.js';
import type { Principal } from '../../auth/api-key.js';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';
import type { Conversation } from '../conversation/conversation.js';
import type { RealtimeAudioPorts } from '../ports/audio-pipeline.js';
import type { SessionEvents, SessionState } from './session-ports.js';
import type { RealtimeUsageObserver } from './engine-deps.js';

/** Largest `audio` string of one append (spec: about 15 s of 24 kHz PCM16). */
export const MAX_APPEND_BASE64_BYTES = 1_048_576;
/** A commit needs at least this much audio, as in the API the protocol follows. */
export const MIN_COMMIT_MS = 100;
/** Without detected speech, server-VAD sessions keep only this much audio (the pre-roll). */
const IDLE_PREROLL_MS = 1000;

/** What the input-audio commands use: the audio engines, the session's events and state, and its responses. */
export interface AudioInputDeps {
  audio: RealtimeAudioPorts;
  clock: Clock;
  logger: Logger;
  principal: Principal;
  conversation: Conversation;
  session: SessionState;
  events: SessionEvents;
  /** Barge-in pauses or interrupts, a detected turn creates a response. */
  responses: BargeInResponses & {
    readonly activeResponse: unknown;
    readonly manualTurns: boolean;
    create(rawResponse: unknown): Promise<void>;
  };
  /** Detected speech or a user turn: restarts the idle timer. */
  userSpoke(): void;
  /** A transcript arrived: background summarization may be due. */
  conversationChanged(): void;
  /** Upper bound of uncommitted input audio held (oldest audio is dropped). */
  maxBufferMs: number;
  /** How long after `speech_stopped` a streamed turn's transcript may take before the turn is dropped (with an error). */
  transcriptDeadlineMs: number;
  usage?: RealtimeUsageObserver;
  /**
   * Set when a media transport delivers the input as samples at this rate (a WebRTC call's track):
   * the buffer then holds PCM at it whatever `audio.input.format` says, and
   * `input_audio_buffer.append` is refused (the audio arrives on the track).
   */
  mediaInputRate?: PcmRate;
}

/** A streamed turn's transcript came too late: the turn is dropped (see transcriptDeadlineMs). */
class TranscriptLate extends Error {}

/** A user turn in progress (server VAD): recognized while the user speaks. */
interface TurnInProgress {
  itemId: string;
  startMs: number;
  /** Where the speech itself began (startMs without the prefix padding): voiced time counts from here. */
  onsetMs: number;
  /** Where the detector last heard speech in this turn (null: it does not say; the input's end counts). */
  voicedUntilMs: number | null;
  /** Aborted when the session closes: the turn's recognition stops with it. */
  controller: AbortController;
  /** Null when the recognizer cannot stream (the turn is then transcribed in one go). */
  recognition: LaggedRecognitionFeed | null;
}

/**
 * `input_audio_buffer.append / commit / clear` and server-side turn detection. With a
 * VoiceActivityDetector wired, server-VAD sessions turn detected speech into user turns and
 * respond; manual sessions (turn_detection: null) accumulate audio until `commit`.
 */
export class AudioInputCommands {
  private buffer: InputAudioBuffer | null = null;
  private vad: VoiceActivityStream | null = null;
  /** The input resampled once for the detector and the recognizer (opened with the detector). */
  private analysis: AnalysisInput | null = null;
  private speech: TurnInProgress | null = null;
  /** semantic_vad: silence was reported but the words so far say the user is not done yet. */
  private pendingEnd: { audioEndMs: number; cancel: () => void } | null = null;
  /** Turns whose transcription is still running; a closed session aborts them all. */
  private readonly turns = new Set<AbortController>();
  private vadKey = '';
  private bufferKey = '';
  /** This session as the recognizer's speaker: its turns adapt to each other, never to another session's. */
  private readonly speaker = {};
  /** Speech over a reply: pause, judge, then cancel or resume. */
  private readonly bargeIn: BargeIn;

  constructor(private readonly deps: AudioInputDeps) {
    this.bargeIn = new BargeIn(deps.responses, deps.clock, deps.logger);
  }

  private get session(): SessionState {
    return this.deps.session;
  }

  private get events(): SessionEvents {
    return this.deps.events;
  }

  /** (Re)builds the buffer and detector when the input format or turn detection changed. */
  configure(config: RealtimeSessionConfig): void {
    const input = config.audio.input;
    const format = this.inputFormat(config);
    const bufferKey = JSON.stringify([format, input.noise_reduction]);
    if (!this.buffer || bufferKey !== this.bufferKey) {
      this.bufferKey = bufferKey;
      this.buffer?.release();
      const { opusCodec, noiseSuppressor } = this.deps.audio;
      const decoder = format.type === 'audio/opus' && opusCodec ? opusCodec.createDecoder(format.frame_size_ms) : null;
      // near_field and far_field run the same suppressor; null runs none.
      const suppression = input.noise_reduction && noiseSuppressor ? noiseSuppressor.open(formatSampleRate(format)) : null;
      this.buffer = new InputAudioBuffer(format, this.deps.maxBufferMs, decoder, suppression);
      this.vadKey = '';
    }
    const vadKey = JSON.stringify([format, input.turn_detection]);
    if (vadKey === this.vadKey) return;
    this.vadKey = vadKey;
    this.closeVad();
    const detector = this.deps.audio.voiceActivityDetector;
    const td = input.turn_detection;
    // Opus input is decoded as it arrives, so it is turn-detected like pcm (without a codec: manual commits).
    if (!detector || !td || !this.buffer.decodesToPcm) return;
    const rate = this.buffer.sampleRate;
    const { resampler } = this.deps.audio;
    const analysisRate = resampler ? ANALYSIS_SAMPLE_RATE : rate;
    // Enough recent audio for the padded onset of a turn the detector confirms min_speech_duration late.
    const keepMs = td.prefix_padding_ms + td.min_speech_duration * 1000 + IDLE_PREROLL_MS;
    this.analysis = new AnalysisInput(resampler && rate !== analysisRate ? resampler.open(rate, analysisRate) : null, analysisRate, keepMs);
    this.vad = detector.open({
      sampleRate: analysisRate,
      threshold: td.threshold,
      prefixPaddingMs: td.prefix_padding_ms,
      silenceDurationMs: td.silence_duration_ms,
      minSpeechDurationMs: td.min_speech_duration * 1000,
      mode: td.type,
    });
  }

  async append(fields: JsonObject): Promise<void> {
    const audio = expectString(requireField(fields, 'audio', 'audio'), 'audio');
    if (audio.length > MAX_APPEND_BASE64_BYTES) {
      throw invalidRequest(
        'audio_chunk_too_large',
        `'audio' is ${audio.length} base64 bytes; at most ${MAX_APPEND_BASE64_BYTES} are accepted per append.`,
        'audio',
      );
    }
    if (this.deps.mediaInputRate) {
      throw invalidRequest('invalid_value', "This session's input audio arrives on its audio track; 'input_audio_buffer.append' is not used.", 'type');
    }
    const bytes = decodeBase64(audio);
    if (!bytes) throw invalidRequest('invalid_value', "'audio' must be base64-encoded audio bytes.", 'audio');
    await this.ingest(this.buffer!.append(bytes));
  }

  /** Samples of a media transport's input track (at `mediaInputRate`), in arrival order. */
  async appendSamples(samples: Int16Array): Promise<void> {
    if (!this.deps.mediaInputRate || !this.buffer) return;
    await this.ingest(this.buffer.appendSamples(samples));
  }

  /** Decoded input: the turn in progress hears it, the detector judges it. */
  private async ingest(pcm: Int16Array): Promise<void> {
    const buffer = this.buffer!;
    if (pcm.length > 0) this.deps.usage?.inputAudio((pcm.length / buffer.sampleRate) * 1000);
    if (!this.vad || !this.analysis || pcm.length === 0) return;
    const samples = this.analysis.append(pcm);
    // The turn in progress hears the new audio at once: its recognizer decodes while the user speaks.
    this.speech?.recognition?.write(samples);
    const events = await this.vad.push(samples);
    for (const event of events) {
      // The session may have closed while the detector ran: nothing new may start then.
      if (this.session.closed) return;
      await this.onVoiceActivity(event);
    }
    if (this.speech) {
      this.speech.voicedUntilMs = this.vad?.voicedUntilMs?.() ?? this.speech.voicedUntilMs;
      // A paused reply: is the speech so far a real interruption?
      if (this.bargeIn.pending) await this.bargeIn.heard(this.speechSoFar(this.speech.voicedUntilMs ?? buffer.endMs));
    }
    if (!this.speech) buffer.dropBefore(buffer.endMs - Math.max(IDLE_PREROLL_MS, this.prefixPaddingMs()));
  }

  commit(): void {
    if (this.deps.responses.activeResponse && this.deps.responses.manualTurns) throw realtimeErrors.voiceOutputTaskOngoing();
    const buffer = this.buffer!;
    const ms = buffer.durationMs;
    if (ms < MIN_COMMIT_MS) {
      throw invalidRequest(
        'input_audio_buffer_commit_empty',
        `Error committing input audio buffer: buffer too small. Expected at least ${MIN_COMMIT_MS}ms of audio, but buffer only has ${ms.toFixed(2)}ms of audio.`,
      );
    }
    this.dropTurnInProgress();
    this.vad?.reset();
    this.deps.userSpoke();
    this.addUserTurn(this.events.newId('item_'), buffer.takeAll(), this.newTurnController(), null);
  }

  clear(): void {
    this.buffer!.clear();
    this.vad?.reset();
    this.dropTurnInProgress();
    this.events.emit({ type: 'input_audio_buffer.cleared' });
  }

  /** Session end: every turn still being recognized is cancelled. */
  close(): void {
    this.closeVad();
    this.buffer?.clear();
    this.buffer?.release();
    for (const turn of this.turns) turn.abort();
    this.turns.clear();
  }

  private async onVoiceActivity(event: VoiceActivityEvent): Promise<void> {
    if (event.type === 'speech_started') {
      if (this.pendingEnd) {
        // The user went on after a pause semantic_vad judged unfinished: the same turn continues.
        this.pendingEnd.cancel();
        this.pendingEnd = null;
        this.deps.userSpoke();
        return;
      }
      if (this.speech) return;
      const controller = this.newTurnController();
      // The recognizer starts from the padded onset already held (at the analysis rate).
      const recognition = this.openRecognition(controller.signal, event.audioStartMs);
      const onsetMs = event.audioStartMs === 0 ? 0 : event.audioStartMs + this.prefixPaddingMs();
      this.speech = { itemId: this.events.newId('item_'), startMs: event.audioStartMs, onsetMs, voicedUntilMs: null, controller, recognition };
      this.deps.userSpoke();
      this.events.emit({ type: 'input_audio_buffer.speech_started', audio_start_ms: Math.round(event.audioStartMs), item_id: this.speech.itemId });
      // A reply still sounding pauses here and is cancelled only once the speech proves an
      // interruption (at once with min_interruption_duration 0; interrupt_response has no effect).
      const td = this.session.config.audio.input.turn_detection!;
      await this.bargeIn.speechStarted(td, this.session.config.audio.input.transcription?.language ?? null, this.speech.itemId);
      return;
    }
    if (!this.speech || this.pendingEnd) return;
    const verdict = this.bargeIn.speechEnded(this.speechSoFar(Math.min(event.audioEndMs, this.speech.voicedUntilMs ?? event.audioEndMs)));
    if (verdict && !verdict.interrupt) {
      // speech_stopped first, then the reply's audio flows again.
      this.dropFalseInterruption(event.audioEndMs);
      await verdict.settle();
      return;
    }
    await verdict?.settle();
    const td = this.session.config.audio.input.turn_detection;
    if (td?.type === 'semantic_vad') {
      const waitMs = semanticEndWaitMs(this.speech.recognition?.partial ?? '', td.eagerness);
      if (waitMs > 0) {
        const cancel = this.deps.clock.setTimer(waitMs, () => {
          this.pendingEnd = null;
          void this.endTurn(event.audioEndMs);
        });
        this.pendingEnd = { audioEndMs: event.audioEndMs, cancel };
        return;
      }
    }
    await this.endTurn(event.audioEndMs);
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
    this.events.emit({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: Math.round(audioEndMs), item_id: speech.itemId });
    speech.controller.abort();
    this.turns.delete(speech.controller);
    this.buffer!.dropBefore(audioEndMs);
  }

  /** speech_stopped: the turn is committed, transcribed (only the final pass is left) and answered. */
  private async endTurn(audioEndMs: number): Promise<void> {
    const speech = this.speech;
    if (!speech || this.session.closed) return;
    this.speech = null;
    const event = { audioEndMs };
    this.events.emit({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: Math.round(event.audioEndMs), item_id: speech.itemId });
    // The detector's start already includes prefix_padding_ms (the port's contract, as the
    // modelled API's audio_start_ms does), so the turn is captured from there.
    const captured = this.buffer!.takeRange(speech.startMs, event.audioEndMs);
    // The recognizer hears the rest of the speech (not the silence that ended it) and runs its final pass.
    this.addUserTurn(speech.itemId, captured, speech.controller, speech.recognition?.finish(event.audioEndMs) ?? null);
    // A response always follows a detected turn (create_response is accepted, no effect).
    try {
      await this.deps.responses.create(undefined);
    } catch (err) {
      this.events.reportError(err, null);
    }
  }

  /** `input_audio_buffer.committed`, the user item, and its transcription in the background. */
  private addUserTurn(itemId: string, captured: CapturedAudio, turn: AbortController, recognized: Promise<{ text: string }> | null): void {
    const { conversation } = this.deps;
    const previousItemId = conversation.lastId();
    this.events.emit({ type: 'input_audio_buffer.committed', previous_item_id: previousItemId, item_id: itemId });
    const item: MessageItem = {
      id: itemId,
      object: 'realtime.item',
      type: 'message',
      status: 'completed',
      role: 'user',
      // null until known (as the modelled API sends it; the agents SDK requires the field), then the words.
      content: [{ type: 'input_audio', transcript: null }],
    };
    const { entry } = conversation.insert(item, previousItemId);
    this.events.emit({ type: 'conversation.item.added', previous_item_id: previousItemId, item: snapshotItem(item) });
    // Never rejects: responses wait on it.
    entry.transcriptReady = this.transcribe(entry, item, captured, recognized, turn.signal)
      .catch((err) => this.deps.logger.error({ err: String(err) }, 'transcription step failed'))
      .finally(() => {
        this.turns.delete(turn);
        delete entry.transcriptReady;
        this.deps.conversationChanged();
      });
  }

  private async transcribe(
    entry: ItemEntry,
    item: MessageItem,
    captured: CapturedAudio,
    recognized: Promise<{ text: string }> | null,
    signal: AbortSignal,
  ): Promise<void> {
    const { audio, principal, logger } = this.deps;
    const part = item.content[0] as { type: 'input_audio'; transcript: string | null };
    const transcription = this.session.config.audio.input.transcription;
    const recognizer = audio.speechRecognizer;
    let transcript = '';
    try {
      if (!recognizer) {
        // Said, not hidden: the turn is kept, the model hears an empty user turn.
        this.events.reportError(realtimeErrors.transcriptionUnavailable(item.id), null);
      } else if (recognized) {
        transcript = (await this.withinDeadline(recognized, signal)).text.trim();
      } else {
        let pcm = captured.pcm ? { samples: captured.pcm, sampleRate: captured.sampleRate } : null;
        const format = this.session.config.audio.input.format;
        if (!pcm && captured.opusPackets && audio.opusCodec && format.type === 'audio/opus') {
          pcm = await audio.opusCodec.decode(captured.opusPackets, format.frame_size_ms);
        }
        if (pcm && pcm.samples.length > 0) {
          transcript = (await recognizer.transcribe(pcm, { language: transcription?.language ?? null, principal, speaker: this.speaker }, signal)).text.trim();
        }
      }
    } catch (err) {
      // A turn cancelled by the client (commit, clear) or the session's end: nothing to say.
      if (this.session.closed || (signal.aborted && !(err instanceof TranscriptLate))) return;
      // Said, never silent: the client hears why this turn gets no reply (docs/realtime.md).
      entry.transcriptionFailed = true;
      if (err instanceof TranscriptLate) {
        logger.warn({ itemId: item.id, deadlineMs: this.deps.transcriptDeadlineMs }, 'a realtime turn was dropped: its transcript was late (overloaded)');
        this.events.reportError(realtimeErrors.turnDroppedOverloaded(item.id, this.deps.transcriptDeadlineMs), null);
      } else if (isRefusal(err)) {
        // A refusal (a limit, a quota) is the client's to read, not a recognizer failure.
        logger.info({ code: err.identifier, itemId: item.id }, 'transcription refused');
        this.events.reportError(err, null);
      } else {
        logger.warn({ err: String(err), itemId: item.id }, 'transcription failed');
        this.events.reportError(realtimeErrors.transcriptionFailed(item.id, err instanceof Error ? err.message : String(err)), null);
      }
      // The item keeps an empty transcript; no `.completed` event claims one was made.
      part.transcript = '';
      return;
    }
    if (this.session.closed || !this.deps.conversation.has(entry.item.id)) return;
    part.transcript = transcript;
    if (transcription?.model) {
      this.events.emit({
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
  private withinDeadline<T>(recognized: Promise<T>, signal: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const cancel = this.deps.clock.setTimer(this.deps.transcriptDeadlineMs, () => {
        reject(new TranscriptLate());
        this.abortTurn(signal);
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

  /** Aborts the turn whose signal this is. */
  private abortTurn(signal: AbortSignal): void {
    for (const turn of this.turns) if (turn.signal === signal) turn.abort();
  }

  private newTurnController(): AbortController {
    const controller = new AbortController();
    if (this.session.closed) controller.abort();
    else this.turns.add(controller);
    return controller;
  }

  /** The turn's streaming recognition, fed from the padded onset (already held at the analysis rate). */
  private openRecognition(signal: AbortSignal, startMs: number): LaggedRecognitionFeed | null {
    const recognizer = this.deps.audio.speechRecognizer;
    const analysis = this.analysis;
    if (!recognizer?.openStream || !analysis) return null;
    const language = this.session.config.audio.input.transcription?.language ?? null;
    const stream = recognizer.openStream({ language, principal: this.deps.principal, speaker: this.speaker, sampleRate: analysis.sampleRate }, signal);
    const onset = analysis.since(startMs);
    const silenceMs = this.session.config.audio.input.turn_detection?.silence_duration_ms ?? 0;
    const feed = new LaggedRecognitionFeed(stream, analysis.sampleRate, analysis.endMs - (onset.length / analysis.sampleRate) * 1000, silenceMs - RECOGNITION_TAIL_MS);
    feed.write(onset);
    return feed;
  }

  /** A commit or clear in the middle of detected speech: that turn's recognition is dropped. */
  private dropTurnInProgress(): void {
    this.bargeIn.abandon();
    this.pendingEnd?.cancel();
    this.pendingEnd = null;
    if (!this.speech) return;
    this.speech.controller.abort();
    this.turns.delete(this.speech.controller);
    this.speech = null;
  }

  /** The format the buffer holds: the session's, or PCM at the media track's rate. */
  private inputFormat(config: RealtimeSessionConfig): AudioFormat {
    const rate = this.deps.mediaInputRate;
    return rate ? { type: 'audio/pcm', rate } : config.audio.input.format;
  }

  private prefixPaddingMs(): number {
    return this.session.config.audio.input.turn_detection?.prefix_padding_ms ?? 0;
  }

  private closeVad(): void {
    this.vad?.close?.();
    this.vad = null;
    this.analysis = null;
    this.dropTurnInProgress();
  }
}
