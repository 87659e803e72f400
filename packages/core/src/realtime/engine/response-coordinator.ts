import { snapshotItem, type ConversationItem, type MessageItem } from '../conversation/items.js';
import { expectString, type JsonObject } from '../protocol/field-checks.js';
import { realtimeErrors } from '../protocol/realtime-error.js';
import { parseResponseOverrides } from '../response/response-overrides.js';
import { ResponseRun } from '../response/response-run.js';
import { cloneSessionConfig, formatSampleRate } from '../session/session-config.js';
import { REALTIME_RESPONSE_RESOURCE } from './engine-deps.js';
import { SpeculativeReply, type SpeculationOutcome } from '../response/speculative-reply.js';
import { modelRequest } from '../response/model-request.js';
import type { Principal } from '../../auth/api-key.js';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';
import type { QuotaGuard } from '../../shared/rate-limiter.js';
import type { Conversation } from '../conversation/conversation.js';
import type { RealtimeAudioPorts } from '../ports/audio-pipeline.js';
import type { LanguageModel } from '../ports/language-model.js';
import type { ReplyAudioTrack } from '../ports/media-transport.js';
import type { SessionEvents, SessionState } from './session-ports.js';

/** What responses need: the model, the audio engines, the quota, and the session's events and state. */
export interface ResponseCoordinatorDeps {
  languageModel: LanguageModel;
  audio: RealtimeAudioPorts;
  quota: QuotaGuard;
  clock: Clock;
  logger: Logger;
  principal: Principal;
  conversation: Conversation;
  conversationId: string;
  session: SessionState;
  events: SessionEvents;
  /** A user item added with response.create: restarts the idle timer. */
  userSpoke(): void;
  /** A response ended: background summarization may be due. */
  conversationChanged(): void;
  /** Quota refused (here or upstream): `insufficient_quota` error, then the session closes (4429). */
  endSessionForQuota(message: string): void;
  /** How far spoken replies may run ahead of playback. */
  audioLeadMs: number;
  /** Told whether each prepared reply was used or discarded. */
  speculated?(outcome: SpeculationOutcome): void;
  /** A media transport's reply track (spoken audio is played there, not sent as deltas). */
  replyTrack?: ReplyAudioTrack;
}

/** A response paused by a barge-in, until the speech proves (cancel) or does not prove (resume) an interruption. */
export interface PausedReply {
  readonly responseId: string;
  resume(): void;
  cancel(): Promise<void>;
}

/** At most one response at a time: creation, cancellation and barge-in interruption. */
export class ResponseCoordinator {
  private active: ResponseRun | null = null;
  /** The last response: on a media track its audio may still be playing after response.done. */
  private last: ResponseRun | null = null;

  constructor(private readonly deps: ResponseCoordinatorDeps) {}

  get activeResponse(): ResponseRun | null {
    return this.active;
  }

  /** Manual turns refuse to overlap responses; server VAD interrupts the one in flight. */
  get manualTurns(): boolean {
    return this.deps.session.config.audio.input.turn_detection === null;
  }

  /**
   * `prepared`: a reply begun while the turn was still being decided (speculation): the response
   * takes its model stream and first spoken piece if they answer what it asks, else it is discarded.
   */
  async create(rawResponse: unknown, prepared: SpeculativeReply | null = null): Promise<void> {
    try {
      await this.start(rawResponse, prepared);
    } finally {
      // Refused, or no response started (quota, a closed session): nothing may keep running for it.
      prepared?.release();
    }
  }

  private async start(rawResponse: unknown, prepared: SpeculativeReply | null): Promise<void> {
    const overrides = parseResponseOverrides(rawResponse);
    // Every check happens before any effect, so a rejected create changes nothing.
    const seen = new Set<string>();
    for (const item of overrides.input) {
      if (item.id === null) continue;
      if (seen.has(item.id)) throw realtimeErrors.duplicateItemId(item.id);
      seen.add(item.id);
      this.deps.conversation.assertInsertable(item.id);
    }
    if (this.active) {
      if (this.manualTurns) throw realtimeErrors.voiceOutputTaskOngoing();
      await this.interrupt();
    }
    const { deps } = this;
    const { principal } = deps;
    const decision = await deps.quota.consume(principal.apiKeyId, REALTIME_RESPONSE_RESOURCE, 1);
    if (!decision.allowed) {
      this.deps.endSessionForQuota(decision.message ?? 'Your quota for realtime responses is exhausted.');
      return;
    }
    if (this.deps.session.closed || this.active) return;

    for (const input of overrides.input) {
      const item = { ...input, id: input.id ?? this.deps.events.newId('item_') } as ConversationItem;
      const { previousItemId } = this.deps.conversation.insert(item);
      this.deps.events.emit({ type: 'conversation.item.added', previous_item_id: previousItemId, item: snapshotItem(item) });
      this.deps.userSpoke();
    }

    const answered = prepared?.adopt();
    const run = new ResponseRun(
      {
        sessionSignal: this.deps.session.signal,
        emit: (e) => this.deps.events.emit(e),
        conversation: this.deps.conversation,
        newId: (p) => this.deps.events.newId(p),
        languageModel: answered?.languageModel ?? deps.languageModel,
        logger: deps.logger,
        principal,
        audio: answered?.replySpeaker ? { ...deps.audio, replySpeaker: answered.replySpeaker } : deps.audio,
        clock: deps.clock,
        audioLeadMs: deps.audioLeadMs,
        replyTrack: deps.replyTrack,
        reportError: (err) => this.deps.events.reportError(err, null),
        endSessionForQuota: (err) => this.deps.endSessionForQuota(err instanceof Error ? err.message : String(err)),
        prepared: answered !== undefined,
      },
      cloneSessionConfig(this.deps.session.config),
      overrides,
      this.deps.conversationId,
    );
    this.active = run;
    this.last = run;
    run
      .start()
      .finally(() => {
        if (this.active === run) this.active = null;
        this.deps.conversationChanged();
      })
      .catch((err) => deps.logger.error({ err: String(err) }, 'response run failed'));
  }

  /** The user started speaking: a session that speaks its replies lets its speaker warm up (ReplySpeaker.warmUp). */
  replyLikelySoon(): void {
    const { session, audio } = this.deps;
    if (session.config.output_modalities[0] === 'audio') audio.replySpeaker?.warmUp?.();
  }

  /**
   * Begins, without a sound or an event, the reply a turn that may be ending would get, answering
   * `transcript` as the user's words (speculation; SpeculativeReply). Null when there is nothing to
   * prepare on: a response is running, or an earlier turn's words are still being recognized.
   */
  prepare(transcript: string): SpeculativeReply | null {
    const { conversation, session, audio, replyTrack, languageModel, principal } = this.deps;
    if (this.active || session.closed) return null;
    const visible = conversation.modelVisible();
    if (visible.some((e) => e.transcriptReady !== undefined)) return null;
    const config = session.config;
    // A detected turn's response has no overrides (create(undefined)).
    const overrides = parseResponseOverrides(undefined);
    const user: MessageItem = {
      id: 'item_prepared',
      object: 'realtime.item',
      type: 'message',
      status: 'completed',
      role: 'user',
      content: [{ type: 'input_audio', transcript }],
    };
    const ask = modelRequest([...visible.map((e) => e.item), user], config, overrides, languageModel, session.signal);
    const format = config.audio.output.format;
    const sampleRate = replyTrack
      ? replyTrack.sampleRate
      : format.type === 'audio/opus' && !audio.opusCodec
        ? null
        : formatSampleRate(format);
    const spoken = (overrides.outputModalities ?? config.output_modalities)[0] === 'audio';
    const voice =
      spoken && audio.replySpeaker && sampleRate !== null
        ? { speaker: audio.replySpeaker, voice: config.audio.output.voice, speed: config.audio.output.speed, sampleRate, principal }
        : null;
    return new SpeculativeReply(languageModel, ask, voice, session.signal, transcript, (outcome) => this.deps.speculated?.(outcome));
  }

  /** `response.cancel`: resolves after `response.done` (status cancelled) has been sent. */
  async cancel(fields: JsonObject): Promise<void> {
    const requested =
      fields.response_id === undefined || fields.response_id === null ? null : expectString(fields.response_id, 'response_id');
    const run = this.active;
    if (!run) throw realtimeErrors.responseNotActive();
    if (requested !== null && requested !== run.id) throw realtimeErrors.responseIdMismatch(requested, run.id);
    await this.stop(run);
  }

  /** The response in flight ends as cancelled (resolves after its `response.done`); false when there is none. */
  async cancelActive(): Promise<boolean> {
    if (!this.active) return false;
    await this.stop(this.active);
    return true;
  }

  /**
   * Barge-in and server-VAD `response.create`: the response in flight ends as cancelled, and audio
   * a media track is still playing of a finished one is cut off where it was.
   */
  async interrupt(): Promise<void> {
    if (this.active) await this.stop(this.active);
    else this.last?.cutOffPlayback();
  }

  /**
   * Barge-in being judged: pauses the response still sounding (generating, or its audio still on a
   * media track) and returns how to settle it; null when nothing is sounding.
   */
  pause(announce: boolean): PausedReply | null {
    const run = this.active ?? this.last;
    if (!run?.pause(announce)) return null;
    return {
      responseId: run.id,
      resume: () => run.resume(announce),
      // Only that response: a response created since (response.create) is not this one to cancel.
      cancel: async () => {
        if (this.active === run) await this.stop(run);
        else run.cutOffPlayback();
      },
    };
  }

  /** `output_audio_buffer.clear` (media transports): the audio of the current response stops sounding. */
  async clearOutputAudio(): Promise<void> {
    await this.interrupt();
  }

  private async stop(run: ResponseRun): Promise<void> {
    await run.cancel();
    if (this.active === run) this.active = null;
  }
}
