import { checkSessionVoice } from './session-voice.js';
import { SemanticTurnEnd } from './semantic-turn-end.js';
import { DEFAULT_AUDIO_LEAD_MS } from '../audio/playback-clock.js';
import type { Principal } from '../../auth/api-key.js';
import { unixSeconds } from '../../shared/clock.js';
import { Conversation } from '../conversation/conversation.js';
import { ExtractiveSummarizer } from '../conversation/summarization.js';
import { clientEventIdOf, parseClientEvent, unknownEventType, type ClientEvent } from '../protocol/client-events.js';
import { requireField } from '../protocol/field-checks.js';
import { invalidRequest, isSystemRoleRejection, realtimeErrors, toRealtimeErrorBody } from '../protocol/realtime-error.js';
import { SESSION_ENDINGS, type ServerEventBody, type SessionEnding } from '../protocol/server-events.js';
import { PCM_RATES, type PcmRate, type RealtimeSessionConfig } from '../session/session-config.js';
import { toSessionObject } from '../session/session-object.js';
import { applySessionUpdate } from '../session/session-update.js';
import { BackgroundSummarizer } from './background-summarizer.js';
import { ConversationCommands } from './conversation-commands.js';
import {
  DEFAULT_MAX_INPUT_AUDIO_BUFFER_MS,
  DEFAULT_TRANSCRIPT_DEADLINE_MS,
  IDLE_TIMEOUT_MS,
  type RealtimeEngineDeps,
  type RealtimeOutput,
  type RealtimeSessionOptions,
} from './engine-deps.js';
import { InputPipeline } from './input-pipeline.js';
import { ResponseCoordinator } from './response-coordinator.js';
import { SessionAvatar } from './session-avatar.js';
import { SessionLifetime } from './session-lifetime.js';
import type { SessionEvents, SessionState } from './session-ports.js';
import type { EndOfTurnVerdict } from '../ports/end-of-turn-model.js';
import { TurnManager } from './turn-manager.js';
import { TurnSpeculation } from './turn-speculation.js';
import type { SpeculationOutcome } from '../response/speculative-reply.js';
import { TurnTranscription } from './turn-transcription.js';

type Phase = 'connected' | 'active' | 'closed';

/** The input buffer holds PCM at one of the rates the protocol knows (Opus tracks: 48 kHz). */
function mediaInputRate(rate: number): PcmRate {
  if (!(PCM_RATES as readonly number[]).includes(rate)) throw new Error(`Media input rate ${rate} is not one of ${PCM_RATES.join(', ')}.`);
  return rate as PcmRate;
}

/**
 * Events a client may send before its first session.update. They are held and handled right
 * after session.created (the spec sends nothing before it, and no event is dropped); past this
 * many the connection is closed with 1008, since such a client is not speaking the protocol.
 */
export const MAX_EVENTS_BEFORE_SESSION = 64;

/**
 * The realtime session state machine, free of any transport: `handle()` takes parsed client
 * events, server events leave through the RealtimeOutput port. Client events are processed one at
 * a time in arrival order; responses and summaries run in the background so a `response.cancel`
 * is handled while a response streams. The session's AbortSignal is the parent of every turn's,
 * response's and summary's own (ChildAbortController): closing the session ends them all.
 *
 * One user turn, from the wire to the first reply audio (each stage's file is in engine/ unless
 * its folder is named; ports are in ports/):
 *
 * | stage                  | file                                  | in -> out                                 | port                  |
 * |------------------------|---------------------------------------|-------------------------------------------|-----------------------|
 * | route the event        | realtime-session-engine.ts            | `input_audio_buffer.append` -> fields     |                       |
 * |  (or a media track)    |   appendInputSamples                  | Int16 samples at the track's rate         | SessionMedia          |
 * | decode                 | input-pipeline.ts (append)            | base64 -> bytes                           |                       |
 * |                        | audio/input-audio-buffer.ts           | pcm16 / pcmu / opus bytes -> Int16        | OpusCodec             |
 * | denoise                | audio/input-audio-buffer.ts           | Int16 -> Int16 (`noise_reduction`)        | NoiseSuppressor       |
 * | hold for the turn      | audio/input-audio-buffer.ts           | Int16 at the input rate, absolute times   |                       |
 * | resample once          | audio/analysis-input.ts               | Int16 -> Int16 at 16 kHz                  | Resampler             |
 * | detect speech          | input-pipeline.ts (ingest)            | Int16 -> speech_started / speech_stopped  | VoiceActivityDetector |
 * | turn starts            | turn-manager.ts (speechStarted)       | -> `input_audio_buffer.speech_started`    |                       |
 * | recognize while spoken | turn-transcription.ts (open)          | Int16 -> partial words                    | SpeechRecognizer      |
 * |                        | audio/lagged-recognition-feed.ts      |                                           |                       |
 * | barge-in               | barge-in.ts, interruption-judge.ts    | speech over a reply -> pause / cancel     |                       |
 * | turn ends              | turn-manager.ts (speechStopped)       | -> `speech_stopped`, `committed`, item    |                       |
 * |  (semantic_vad)        | semantic-turn-end.ts                  | partial words + pitch -> wait or end      | Clock                 |
 * |                        | audio/ending-pitch.ts                 | Int16 at 16 kHz -> falling / level / rise |                       |
 * | speculate at a pause   | turn-speculation.ts                   | partial words -> a reply begun, unseen    | ServerLoadProbe       |
 * |                        | response/speculative-reply.ts         | (model stream + first piece, held)        | LanguageModel         |
 * | transcript             | turn-transcription.ts (transcribe)    | final pass -> item transcript             | SpeechRecognizer      |
 * | respond                | response-coordinator.ts               | -> one ResponseRun                        | QuotaGuard            |
 * | prompt                 | response/response-run.ts              | conversation -> tokens                    | LanguageModel         |
 * | speak                  | response/audio-message-output.ts      | sentences -> Int16 at the output rate     | ReplySpeaker          |
 * |                        | audio/synthesized-reply-speaker.ts    | (SynthesizeSpeech.speak: never bytes)     |                       |
 * | pace and encode        | response/reply-audio-output.ts        | Int16 -> delta bytes (pcm: same memory)   | (PlaybackClock)       |
 * |  (media track)         |   MediaTrackAudioOutput               | Int16 -> the track (Opus in the adapter)  | ReplyAudioTrack       |
 * | send                   | the transport (adapters-ws, -webrtc)  | event -> JSON, delta base64 once          | RealtimeOutput        |
 * |                        | protocol/server-events.ts             | (serverEventJson)                         |                       |
 */
export class RealtimeSessionEngine {
  readonly sessionId: string;
  readonly conversationId: string;
  readonly principal: Principal;
  readonly conversation: Conversation;
  private phase: Phase = 'connected';
  private current: RealtimeSessionConfig | null = null;
  private queue: Promise<void> = Promise.resolve();
  /**
   * What happened before the session existed, in arrival order: client events to handle and
   * server events (errors for malformed frames) to send, right after session.created.
   */
  private held: Array<{ input: unknown } | { output: ServerEventBody }> = [];
  private readonly eventIdBase: string;
  private eventCounter = 0;
  /** Aborted by shutdown: the parent signal of everything the session runs. */
  private readonly sessionAbort = new AbortController();
  private readonly lifetime: SessionLifetime;
  private readonly responses: ResponseCoordinator;
  private readonly input: InputPipeline;
  private readonly turns: TurnManager;
  private readonly items: ConversationCommands;
  private readonly summaries: BackgroundSummarizer;
  private readonly avatar: SessionAvatar;

  constructor(
    readonly deps: RealtimeEngineDeps,
    private readonly options: RealtimeSessionOptions,
    private readonly output: RealtimeOutput,
  ) {
    this.principal = options.principal;
    this.conversation = new Conversation(options.conversationLimits);
    this.sessionId = options.sessionId ?? deps.ids.id('sess_');
    this.conversationId = `conv_${this.sessionId.replace(/^sess_/, '')}`;
    this.eventIdBase = deps.ids.id('event_');
    // Each helper gets what it uses: what it may say (events) and what it may read (state), never the engine.
    const events: SessionEvents = {
      emit: (event) => this.emit(event),
      reportError: (err, clientEventId) => this.reportError(err, clientEventId),
      newId: (prefix) => deps.ids.id(prefix),
    };
    const config = () => this.config;
    const signal = this.sessionAbort.signal;
    const state: SessionState = {
      get config() {
        return config();
      },
      // shutdown() aborts the signal as it closes the session.
      get closed() {
        return signal.aborted;
      },
      signal,
    };
    const userSpoke = () => this.lifetime.userSpoke();
    const conversationChanged = () => this.conversationChanged();
    const shared = { conversation: this.conversation, session: state, events, logger: deps.logger };
    const audio = deps.audio ?? {};
    this.responses = new ResponseCoordinator({
      ...shared,
      languageModel: deps.languageModel,
      audio,
      quota: deps.quota,
      clock: deps.clock,
      principal: this.principal,
      conversationId: this.conversationId,
      userSpoke,
      conversationChanged,
      endSessionForQuota: (message) => this.refuseQuota(message),
      audioLeadMs: options.audioLeadMs ?? DEFAULT_AUDIO_LEAD_MS,
      replyTrack: options.media?.replyTrack,
      speculated: (outcome: SpeculationOutcome) => deps.speculated?.(outcome),
    });
    const semantic = new SemanticTurnEnd(deps.semanticEagerness ?? false);
    this.input = new InputPipeline({
      audio,
      semantic,
      maxBufferMs: options.maxInputAudioBufferMs ?? DEFAULT_MAX_INPUT_AUDIO_BUFFER_MS,
      sessionSignal: signal,
      ...(deps.usage ? { usage: deps.usage } : {}),
      mediaInputRate: options.media ? mediaInputRate(options.media.inputSampleRate) : undefined,
    });
    const transcription = new TurnTranscription({
      audio,
      clock: deps.clock,
      logger: deps.logger,
      principal: this.principal,
      session: state,
      events,
      hasItem: (itemId) => this.conversation.has(itemId),
      transcriptDeadlineMs: options.transcriptDeadlineMs ?? DEFAULT_TRANSCRIPT_DEADLINE_MS,
      semantic,
    });
    const speculation = new TurnSpeculation({
      enabled: deps.speculativeReplies ?? false,
      ...(deps.load ? { load: deps.load } : {}),
      ...(deps.loadLimits ? { loadLimits: deps.loadLimits } : {}),
      prepare: (transcript) => this.responses.prepare(transcript),
    });
    this.turns = new TurnManager({
      ...shared,
      clock: deps.clock,
      input: this.input,
      transcription,
      responses: this.responses,
      userSpoke,
      conversationChanged,
      semantic,
      speculation,
      ...(audio.endOfTurnModel ? { endOfTurnModel: audio.endOfTurnModel } : {}),
      turnModelJudged: (verdict: EndOfTurnVerdict) => deps.turnModelJudged?.(verdict),
    });
    this.input.connect(this.turns);
    this.items = new ConversationCommands({
      ...shared,
      userSpoke,
      conversationChanged,
      cancelResponse: () => this.responses.cancelActive(),
    });
    this.summaries = new BackgroundSummarizer(
      { ...shared, contextWindowTokens: deps.languageModel.contextWindowTokens },
      deps.summarizer ?? new ExtractiveSummarizer(),
    );
    this.avatar = new SessionAvatar(deps.liveAvatar, options.video, deps.logger, deps.clock, this.principal.apiKeyId);
    this.lifetime = new SessionLifetime(
      deps.clock,
      options.idleTimeoutMs ?? IDLE_TIMEOUT_MS,
      options.maxDurationSec * 1000,
      (secondsIdle) => this.endOnIdle(secondsIdle),
      () => this.endOnMaxDuration(),
    );
    this.lifetime.start();
  }

  /** Queues one parsed client event; resolves when it has been handled. Never rejects. */
  handle(raw: unknown): Promise<void> {
    this.queue = this.queue
      .then(() => this.dispatch(raw))
      .catch((err) => {
        // dispatch reports every expected failure itself; this is a bug, so log it loudly.
        this.deps.logger.error({ err: String(err), stack: (err as Error)?.stack }, 'realtime event handling failed');
        this.reportError(err, null);
      });
    return this.queue;
  }

  /**
   * Input samples of a media transport's track (at `media.inputSampleRate`), queued with the
   * client events so they keep their order. Dropped before the session is configured (as the
   * modelled API does, audio before session.created is not kept). Never rejects.
   */
  appendInputSamples(samples: Int16Array): Promise<void> {
    this.queue = this.queue.then(async () => {
      if (this.phase !== 'active') return;
      try {
        await this.input.appendSamples(samples);
      } catch (err) {
        this.reportError(err, null);
      }
    });
    return this.queue;
  }

  /** A frame that was not valid JSON (the transport could not parse it). */
  rejectFrame(message: string): Promise<void> {
    // Through the same queue as events, so answers keep the order the frames arrived in.
    this.queue = this.queue.then(() => {
      if (this.phase !== 'closed') this.reportError(invalidRequest('invalid_json', message), null);
    });
    return this.queue;
  }

  /** The transport went away: stop everything, send nothing. */
  transportClosed(): void {
    this.shutdown();
  }

  get closed(): boolean {
    return this.phase === 'closed';
  }

  get active(): boolean {
    return this.phase === 'active';
  }

  private get config(): RealtimeSessionConfig {
    if (!this.current) throw new Error('The session is not configured yet.');
    return this.current;
  }

  private emit(event: ServerEventBody): void {
    if (this.phase === 'closed') return;
    if (this.phase === 'connected') {
      this.hold({ output: event });
      return;
    }
    this.send(event);
  }

  private send(event: ServerEventBody): void {
    const { type, ...fields } = event;
    this.output.send({ type, event_id: `${this.eventIdBase}_${(++this.eventCounter).toString(36)}`, ...fields });
  }

  private reportError(err: unknown, clientEventId: string | null = null): void {
    this.emit({ type: 'error', error: toRealtimeErrorBody(err, clientEventId) });
  }

  private refuseQuota(message: string): void {
    this.reportError(realtimeErrors.insufficientQuota(message), null);
    this.terminate(SESSION_ENDINGS.quotaRefused, 'insufficient quota');
  }

  private conversationChanged(): void {
    if (this.phase === 'active') this.summaries.check();
  }

  private async dispatch(raw: unknown): Promise<void> {
    if (this.phase === 'closed') return;
    const eventId = clientEventIdOf(raw, () => `${this.eventIdBase}_client_${(++this.eventCounter).toString(36)}`);
    let event: ClientEvent;
    try {
      event = parseClientEvent(raw, eventId);
    } catch (err) {
      this.reportError(err, eventId);
      return;
    }
    if (this.phase === 'connected' && event.type !== 'session.update') {
      this.hold({ input: raw });
      return;
    }
    try {
      await this.route(event);
    } catch (err) {
      if (event.type === 'session.update' && this.phase === 'connected') {
        // The first configuration failed: its error is the only thing this connection hears.
        this.held = [];
        this.send({ type: 'error', error: toRealtimeErrorBody(err, eventId) });
      } else {
        this.reportError(err, eventId);
      }
      // An invalid configuration ends the session (spec: error, then the session is closed), and
      // so does a `system` message (the issue lists it with the rejected configuration).
      if (event.type === 'session.update' || isSystemRoleRejection(err)) {
        if (event.type === 'session.update') this.terminate(SESSION_ENDINGS.invalidConfiguration, 'invalid session configuration');
        else this.terminate(SESSION_ENDINGS.systemMessage, 'system messages are not supported');
      }
    }
  }

  private hold(entry: { input: unknown } | { output: ServerEventBody }): void {
    if (this.held.length >= MAX_EVENTS_BEFORE_SESSION) {
      this.terminate(SESSION_ENDINGS.protocolViolation, 'too many events before session.update');
      return;
    }
    this.held.push(entry);
  }

  /** After session.created: what was held is sent and handled, in arrival order. */
  private async releaseHeld(): Promise<void> {
    const held = this.held;
    this.held = [];
    for (const entry of held) {
      if ('output' in entry) this.emit(entry.output);
      else await this.dispatch(entry.input);
    }
  }

  private async route(event: ClientEvent): Promise<void> {
    const f = event.fields;
    switch (event.type) {
      case 'session.update':
        return this.updateSession(requireField(f, 'session', 'session'));
      case 'input_audio_buffer.append':
        return this.input.append(f);
      case 'input_audio_buffer.commit':
        return this.turns.commit();
      case 'input_audio_buffer.clear':
        return this.turns.clear();
      case 'conversation.item.create':
        return this.items.create(f);
      case 'conversation.item.retrieve':
        return this.items.retrieve(f);
      case 'conversation.item.truncate':
        return this.items.truncate(f);
      case 'conversation.item.delete':
        return this.items.delete(f);
      case 'response.create':
        return this.responses.create(f.response);
      case 'response.cancel':
        return this.responses.cancel(f);
      case 'output_audio_buffer.clear':
        // Only a session whose replies play on a media track has an output audio buffer.
        if (!this.options.media) throw unknownEventType(event.type);
        return this.responses.clearOutputAudio();
    }
  }

  private async updateSession(raw: unknown): Promise<void> {
    const { config, voiceToValidate } = applySessionUpdate(raw, this.current, this.options.urlModel, this.deps.openAiModelAliases ?? false);
    await checkSessionVoice(voiceToValidate, this.deps.voices, this.principal);
    // the face first: a photo that cannot be shown fails the update before anything changes
    const avatar = await this.avatar.prepare(config.avatar);
    if (this.phase === 'closed') {
      if (avatar && avatar !== this.avatar.shown) avatar.close();
      return;
    }
    const first = this.phase === 'connected';
    this.current = config;
    this.phase = 'active';
    this.avatar.commit(config.avatar, avatar);
    this.input.configure(config);
    const expiresAt = unixSeconds(this.lifetime.startedAt + this.lifetime.maxDurationMs);
    this.emit({ type: first ? 'session.created' : 'session.updated', session: toSessionObject(config, this.sessionId, expiresAt) });
    this.summaries.check();
    if (first) await this.releaseHeld();
  }

  private endOnIdle(secondsIdle: number): void {
    // Before the first session.update nothing may be sent; the connection just ends.
    if (this.phase === 'active') this.emit({ type: 'session.idle_timeout', seconds_idle: secondsIdle });
    this.terminate(SESSION_ENDINGS.idleTimeout, 'session idle timeout');
  }

  private endOnMaxDuration(): void {
    if (this.phase === 'active') {
      this.emit({ type: 'session.max_duration_reached', max_duration_sec: this.options.maxDurationSec });
    }
    this.terminate(SESSION_ENDINGS.maxDuration, 'max session duration reached');
  }

  /** Ends the session from the server side: the last event has been sent, then the close. */
  private terminate(ending: SessionEnding, reason: string): void {
    if (this.phase === 'closed') return;
    this.shutdown();
    this.output.close(ending, reason);
  }

  private shutdown(): void {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    this.lifetime.stop();
    // Every turn, response and summary in flight is a child of this signal.
    this.sessionAbort.abort();
    this.input.close();
    this.avatar.close();
  }
}
