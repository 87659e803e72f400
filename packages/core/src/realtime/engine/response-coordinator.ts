import { snapshotItem, type ConversationItem } from '../conversation/items.js';
import { expectString, type JsonObject } from '../protocol/field-checks.js';
import { realtimeErrors } from '../protocol/realtime-error.js';
import { parseResponseOverrides } from '../response/response-overrides.js';
import { ResponseRun } from '../response/response-run.js';
import { cloneSessionConfig } from '../session/session-config.js';
import { REALTIME_RESPONSE_RESOURCE } from './engine-deps.js';
import type { SessionRuntime } from './session-runtime.js';

/** At most one response at a time: creation, cancellation and barge-in interruption. */
export class ResponseCoordinator {
  private active: ResponseRun | null = null;

  constructor(
    private readonly rt: SessionRuntime,
    private readonly audioLeadMs: number,
  ) {}

  get activeResponse(): ResponseRun | null {
    return this.active;
  }

  /** Manual turns refuse to overlap responses; server VAD interrupts the one in flight. */
  get manualTurns(): boolean {
    return this.rt.config.audio.input.turn_detection === null;
  }

  async create(rawResponse: unknown): Promise<void> {
    const overrides = parseResponseOverrides(rawResponse);
    // Every check happens before any effect, so a rejected create changes nothing.
    const seen = new Set<string>();
    for (const item of overrides.input) {
      if (item.id === null) continue;
      if (seen.has(item.id)) throw realtimeErrors.duplicateItemId(item.id);
      seen.add(item.id);
      this.rt.conversation.assertInsertable(item.id);
    }
    if (this.active) {
      if (this.manualTurns) throw realtimeErrors.voiceOutputTaskOngoing();
      await this.interrupt();
    }
    const { principal, deps } = this.rt;
    const decision = await deps.quota.consume(principal.apiKeyId, REALTIME_RESPONSE_RESOURCE, 1);
    if (!decision.allowed) {
      this.rt.refuseQuota(decision.message ?? 'Your quota for realtime responses is exhausted.');
      return;
    }
    if (this.rt.closed || this.active) return;

    for (const input of overrides.input) {
      const item = { ...input, id: input.id ?? this.rt.newId('item_') } as ConversationItem;
      const { previousItemId } = this.rt.conversation.insert(item);
      this.rt.emit({ type: 'conversation.item.added', previous_item_id: previousItemId, item: snapshotItem(item) });
      this.rt.noteUserActivity();
    }

    const run = new ResponseRun(
      {
        emit: (e) => this.rt.emit(e),
        conversation: this.rt.conversation,
        newId: (p) => this.rt.newId(p),
        languageModel: deps.languageModel,
        logger: deps.logger,
        principal,
        audio: deps.audio ?? {},
        clock: deps.clock,
        audioLeadMs: this.audioLeadMs,
        reportError: (err) => this.rt.reportError(err, null),
        reportFatal: (err) => this.rt.refuseQuota(err instanceof Error ? err.message : String(err)),
      },
      cloneSessionConfig(this.rt.config),
      overrides,
      this.rt.conversationId,
    );
    this.active = run;
    run
      .start()
      .finally(() => {
        if (this.active === run) this.active = null;
        this.rt.conversationChanged();
      })
      .catch((err) => deps.logger.error({ err: String(err) }, 'response run failed'));
  }

  /** `response.cancel`: resolves after `response.done` (status cancelled) has been sent. */
  async cancel(fields: JsonObject): Promise<void> {
    const requested = fields.response_id === undefined || fields.response_id === null ? null : expectString(fields.response_id, 'response_id');
    const run = this.active;
    if (!run) throw realtimeErrors.responseNotActive();
    if (requested !== null && requested !== run.id) throw realtimeErrors.responseIdMismatch(requested, run.id);
    await this.stop(run);
  }

  /** Barge-in and server-VAD `response.create`: the response in flight ends as cancelled. */
  async interrupt(): Promise<void> {
    if (this.active) await this.stop(this.active);
  }

  /** Session end: stop silently (no events are sent once the session is closed). */
  abort(): void {
    void this.active?.cancel();
    this.active = null;
  }

  private async stop(run: ResponseRun): Promise<void> {
    await run.cancel();
    if (this.active === run) this.active = null;
  }
}
