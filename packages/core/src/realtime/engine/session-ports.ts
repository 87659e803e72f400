import type { ServerEventBody } from '../protocol/server-events.js';
import type { RealtimeSessionConfig } from '../session/session-config.js';

/**
 * What the engine's helpers get from their session instead of the session itself: each helper's
 * constructor names exactly the pieces it uses (these two, plus the services and callbacks it needs).
 * The engine builds one object of each; it never hands itself over.
 */

/** Server events of the session: what a helper may say. */
export interface SessionEvents {
  emit(event: ServerEventBody): void;
  /** Sends an `error` event; the session continues. */
  reportError(err: unknown, clientEventId?: string | null): void;
  newId(prefix: string): string;
}

/** What a helper may read of its session: the effective configuration (helpers run once it is active) and its end. */
export interface SessionState {
  readonly config: RealtimeSessionConfig;
  readonly closed: boolean;
  /**
   * Aborted when the session ends: the parent of every turn's, response's and summary's own signal
   * (ChildAbortController), so closing the session stops them all.
   */
  readonly signal: AbortSignal;
}
