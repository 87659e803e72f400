import type { Principal } from '../../auth/api-key.js';
import type { Logger } from '../../shared/logger.js';
import type { Conversation } from '../conversation/conversation.js';
import type { ServerEventBody } from '../protocol/server-events.js';

/** What an output item needs from the response that produces it. */
export interface OutputContext {
  responseId: string;
  emit(event: ServerEventBody): void;
  conversation: Conversation;
  newId(prefix: string): string;
  signal: AbortSignal;
  principal: Principal;
  logger: Logger;
  /** Reports a non-fatal failure (e.g. speech synthesis) to the client as an `error` event. */
  reportError(err: unknown): void;
}
