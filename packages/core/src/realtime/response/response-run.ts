import type { Principal } from '../../auth/api-key.js';
import { ChildAbortController } from '../../shared/child-abort-controller.js';
import { isRefusal, ServiceError } from '../../shared/errors.js';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';
import { PlaybackClock } from '../audio/playback-clock.js';
import { createResponseAudioEncoder } from '../audio/response-audio-encoder.js';
import type { Conversation } from '../conversation/conversation.js';
import { snapshotItem } from '../conversation/items.js';
import type { RealtimeAudioPorts } from '../ports/audio-pipeline.js';
import type { ReplyAudioTrack } from '../ports/media-transport.js';
import type { LanguageModel, LanguageModelRequest } from '../ports/language-model.js';
import type { ServerEventBody } from '../protocol/server-events.js';
import type { RealtimeSessionConfig } from '../session/session-config.js';
import { abortable, ResponseAborted, untilAborted } from './abortable.js';
import { AudioMessageOutput } from './audio-message-output.js';
import { FunctionCallOutput } from './function-call-output.js';
import { modelRequest } from './model-request.js';
import type { OutputContext } from './output-context.js';
import { DeltaEventAudioOutput, MediaTrackAudioOutput, type ReplyAudioOutput } from './reply-audio-output.js';
import { ResponseTrackPlayout } from './response-track-playout.js';
import { responseObject, type ResponseDescription, type ResponseStatus } from './response-object.js';
import type { ResponseOverrides } from './response-overrides.js';
import { TextMessageOutput } from './text-message-output.js';

export interface ResponseRunDeps {
  /** The session's signal: the response ends (cancelled, silently) when the session does. */
  sessionSignal: AbortSignal;
  emit(event: ServerEventBody): void;
  conversation: Conversation;
  newId(prefix: string): string;
  languageModel: LanguageModel;
  logger: Logger;
  principal: Principal;
  audio: RealtimeAudioPorts;
  clock: Clock;
  /** How far spoken audio may run ahead of the listener's playback (ms). */
  audioLeadMs: number;
  /** A media transport's reply track: spoken audio goes there instead of into delta events. */
  replyTrack?: ReplyAudioTrack;
  /** Sends an `error` event for a failure that does not end the session. */
  reportError(err: unknown): void;
  /** The upstream refused for quota: the session ends (insufficient_quota, close 4429). */
  endSessionForQuota(err: unknown): void;
  /** The response adopted a reply begun during the turn (speculation): said in its timing log. */
  prepared?: boolean;
}

type MessageOutput = TextMessageOutput | AudioMessageOutput;

/**
 * One response from `response.created` to `response.done`: prompt the language model with the
 * conversation and stream its text and tool calls out as GA events. One AbortController per
 * response, a child of the session's; cancelling stops the model, the speech and the events at
 * once, and the response still ends with `response.done` (status `cancelled`).
 */
export class ResponseRun {
  readonly id: string;
  private readonly controller: ChildAbortController;
  private readonly description: ResponseDescription;
  private readonly outputs: (MessageOutput | FunctionCallOutput)[] = [];
  private message: MessageOutput | null = null;
  private readonly calls = new Map<number, FunctionCallOutput>();
  private status: ResponseStatus = 'in_progress';
  private settled: Promise<void> | null = null;
  private readonly playback: PlaybackClock;
  /** The response's audio on a media transport's reply track (null: audio leaves as delta events). */
  private readonly trackPlayout: ResponseTrackPlayout | null;
  /** When a barge-in paused this response's audio (null: not paused). */
  private pausedAt: number | null = null;
  /** Where the time to the first audio went (ms from response.created), logged at debug level. */
  private readonly timing: { startedAt: number; askedMs?: number; firstTextMs?: number; logged?: boolean };

  constructor(
    private readonly deps: ResponseRunDeps,
    private readonly config: RealtimeSessionConfig,
    private readonly overrides: ResponseOverrides,
    conversationId: string,
  ) {
    this.id = deps.newId('resp_');
    this.controller = new ChildAbortController(deps.sessionSignal);
    this.playback = new PlaybackClock(deps.clock, deps.audioLeadMs);
    this.timing = { startedAt: deps.clock.now() };
    this.trackPlayout = deps.replyTrack ? new ResponseTrackPlayout(deps.replyTrack, this.id, this.emit) : null;
    // A cut-off response stops sounding at once, before its items are closed.
    if (this.trackPlayout) this.controller.signal.addEventListener('abort', () => this.trackPlayout?.clear(), { once: true });
    this.description = {
      id: this.id,
      conversationId,
      outputModalities: overrides.outputModalities ?? config.output_modalities,
      maxOutputTokens: overrides.maxOutputTokens ?? config.max_output_tokens,
      outputFormat: config.audio.output.format,
      voice: config.audio.output.voice,
    };
  }

  /** Emits `response.created` now; the returned promise settles after `response.done`. */
  start(): Promise<void> {
    this.deps.emit({ type: 'response.created', response: responseObject(this.description, 'in_progress', [], this.overrides.metadata) });
    this.settled = this.run();
    return this.settled;
  }

  /** Cancels; resolves once `response.done` has been sent. */
  cancel(): Promise<void> {
    this.controller.abort();
    return this.settled ?? Promise.resolve();
  }

  get finished(): Promise<void> {
    return this.settled ?? Promise.resolve();
  }

  private get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The events out, noting when the first audio leaves (a delta, or a media track's start). */
  private readonly emit = (event: ServerEventBody): void => {
    if (!this.timing.logged && (event.type === 'response.output_audio.delta' || event.type === 'output_audio_buffer.started')) {
      this.timing.logged = true;
      const { startedAt, askedMs, firstTextMs } = this.timing;
      this.deps.logger.debug(
        {
          responseId: this.id,
          prepared: this.deps.prepared ?? false,
          askedMs,
          firstTextMs,
          firstAudioMs: this.deps.clock.now() - startedAt,
        },
        'response: first audio (ms from response.created: the model asked once the transcript was ready, its first text, the first audio)',
      );
    }
    this.deps.emit(event);
  };

  private async run(): Promise<void> {
    try {
      const request = await this.buildRequest();
      this.timing.askedMs = this.deps.clock.now() - this.timing.startedAt;
      for await (const event of abortable(this.deps.languageModel.stream(request), this.signal)) {
        this.timing.firstTextMs ??= this.deps.clock.now() - this.timing.startedAt;
        if (event.type === 'text') await this.onText(event.delta);
        else if (event.type === 'tool_call') await this.onToolCall(event.index, event.callId, event.name);
        else this.calls.get(event.index)?.delta(event.delta);
      }
      // The model is done, the voice may not be: a spoken reply is complete only once its last
      // delta has left. A cancel during synthesis or pacing still ends the response cancelled.
      for (const output of this.outputs) if (output instanceof AudioMessageOutput) await output.drain();
      this.status = this.signal.aborted ? 'cancelled' : 'completed';
    } catch (err) {
      this.status = 'cancelled';
      if (!(err instanceof ResponseAborted) && !this.signal.aborted) this.onFailure(err);
    }
    // Outputs still open are closed before response.done so every `.added` has its `.done`.
    const itemStatus = this.status === 'completed' ? 'completed' : 'incomplete';
    for (const output of this.outputs) await output.finish(itemStatus);
    const completedPlayout = this.status === 'completed' ? this.trackPlayout : null;
    if (!completedPlayout) this.controller.abort();
    this.deps.emit({
      type: 'response.done',
      response: responseObject(
        this.description,
        this.status,
        this.outputs.map((o) => snapshotItem(o.item)),
        null,
      ),
    });
    // The track is still sending the last lead of audio: output_audio_buffer.stopped follows.
    if (completedPlayout) void completedPlayout.finish();
  }

  /**
   * After `response.done`, a media track may still be sending this response's last audio. Cuts it
   * off (barge-in, `output_audio_buffer.clear`) and truncates its spoken items to what was sent;
   * false when nothing was playing.
   */
  cutOffPlayback(): boolean {
    if (!this.trackPlayout?.audible) return false;
    this.trackPlayout.clear();
    for (const output of this.outputs) if (output instanceof AudioMessageOutput) output.truncateToHeard();
    return true;
  }

  /**
   * A barge-in is being judged: the audio stops where it is (no more deltas leave; a media track
   * stops sending at its next frame) while the model and the synthesis wait on the backpressure.
   * False when nothing of this response is still to be heard. `announce`: the client asked for
   * `response.output_audio.paused` / `.resumed` (and pauses its player on them).
   */
  pause(announce: boolean): boolean {
    if (this.pausedAt !== null) return true;
    if (this.signal.aborted) return false;
    const generating = this.status === 'in_progress';
    if (!generating && !this.trackPlayout?.audible) return false;
    this.pausedAt = this.deps.clock.now();
    this.playback.pause(announce);
    this.trackPlayout?.pause();
    if (announce) this.deps.emit({ type: 'response.output_audio.paused', response_id: this.id });
    return true;
  }

  /** The speech was not an interruption: the audio goes on from where it paused. */
  resume(announce: boolean): void {
    if (this.pausedAt === null) return;
    const pausedMs = this.deps.clock.now() - this.pausedAt;
    this.pausedAt = null;
    this.playback.resume();
    this.trackPlayout?.resume();
    if (announce && !this.signal.aborted)
      this.deps.emit({ type: 'response.output_audio.resumed', response_id: this.id, paused_ms: Math.round(pausedMs) });
  }

  private async buildRequest(): Promise<LanguageModelRequest> {
    const { conversation, languageModel } = this.deps;
    // User audio turns may still be in transcription; the model needs their words.
    const pending = conversation.modelVisible().flatMap((e) => (e.transcriptReady ? [e.transcriptReady] : []));
    if (pending.length > 0) await untilAborted(Promise.all(pending), this.signal);
    // The user's last turn could not be heard (its `error` said why): a reply would answer words
    // nobody heard, so the response ends cancelled, without output.
    const lastUser = conversation.modelVisible().findLast((e) => e.item.type === 'message' && e.item.role === 'user');
    if (lastUser?.transcriptionFailed) throw new ResponseAborted();
    const items = conversation.modelVisible().map((e) => e.item);
    return modelRequest(items, this.config, this.overrides, languageModel, this.signal);
  }

  private async onText(delta: string): Promise<void> {
    if (delta === '') return;
    if (!this.message || this.message.isFinished) {
      await this.finishOpenCalls();
      this.message = this.newMessage();
      this.outputs.push(this.message);
    }
    await this.message.delta(delta);
  }

  private async onToolCall(index: number, callId: string, name: string): Promise<void> {
    if (this.message && !this.message.isFinished) await this.message.finish('completed');
    await this.finishOpenCalls();
    const call = new FunctionCallOutput(this.outputContext(), this.outputs.length, callId, name);
    this.calls.set(index, call);
    this.outputs.push(call);
  }

  /** Calls stream one after another; a new output closes the previous call. */
  private async finishOpenCalls(): Promise<void> {
    for (const call of this.calls.values()) call.finish('completed');
  }

  private newMessage(): MessageOutput {
    const ctx = this.outputContext();
    if (this.description.outputModalities[0] === 'text') return new TextMessageOutput(ctx, this.outputs.length);
    const audio = this.config.audio.output;
    return new AudioMessageOutput(ctx, this.outputs.length, {
      speaker: this.deps.audio.replySpeaker ?? null,
      audioOutput: (emitDelta) => this.audioOutput(emitDelta),
      voice: audio.voice,
      speed: audio.speed,
    });
  }

  /** A media track when the transport has one, else delta events in `audio.output.format`. */
  private audioOutput(emitDelta: (bytes: Uint8Array) => void): ReplyAudioOutput | null {
    const track = this.trackPlayout;
    if (track) return new MediaTrackAudioOutput(track.sampleRate, () => track.get());
    const encoder = createResponseAudioEncoder(this.config.audio.output.format, this.deps.audio.opusCodec);
    return encoder ? new DeltaEventAudioOutput(this.playback, encoder, emitDelta) : null;
  }

  private outputContext(): OutputContext {
    return {
      responseId: this.id,
      emit: this.emit,
      conversation: this.deps.conversation,
      newId: this.deps.newId,
      signal: this.signal,
      principal: this.deps.principal,
      logger: this.deps.logger,
      reportError: this.deps.reportError,
    };
  }

  private onFailure(err: unknown): void {
    if (err instanceof ServiceError && err.identifier === 'insufficient_quota') {
      this.deps.endSessionForQuota(err);
      return;
    }
    // A response the rules refuse (conversation_full, a bad override) is not a model failure.
    if (isRefusal(err)) this.deps.logger.info({ code: err.identifier, responseId: this.id }, 'response refused');
    else this.deps.logger.warn({ err: String(err), responseId: this.id }, 'language model failed during a response');
    this.deps.reportError(err);
  }
}
