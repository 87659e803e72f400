import type { Principal } from '../../auth/api-key.js';
import type { Conversation } from '../conversation/conversation.js';
import type { ServerEventBody } from '../protocol/server-events.js';
import type { RealtimeSessionConfig } from '../session/session-config.js';
import type { RealtimeEngineDeps } from './engine-deps.js';

/** What the command handlers of one session share (implemented by the engine). */
export interface SessionRuntime {
  readonly deps: RealtimeEngineDeps;
  readonly principal: Principal;
  readonly conversation: Conversation;
  readonly conversationId: string;
  /** The effective configuration (handlers run only once the session is active). */
  readonly config: RealtimeSessionConfig;
  readonly closed: boolean;
  emit(event: ServerEventBody): void;
  newId(prefix: string): string;
  /** Sends an `error` event (the session continues). */
  reportError(err: unknown, clientEventId?: string | null): void;
  /** Quota refused: `error` type insufficient_quota, then close 4429. */
  refuseQuota(message: string): void;
  /** Detected user speech or a user turn: restarts the idle timer. */
  noteUserActivity(): void;
  /** The conversation grew: background summarization may be due. */
  conversationChanged(): void;
}
