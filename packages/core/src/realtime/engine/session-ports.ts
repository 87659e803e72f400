import type { ServerEventBody } from '../protocol/server-events.js';
import type { RealtimeSessionConfig } from '../session/session-config.js';

/**
 * What the engine's helpers get from their session instead of the session itself: each helper's
 * constructor names exactly the pieces it uses (these two, plus the services and callbacks it needs).
 */

/** Server events of the session. */
export interface SessionEvents {
  emit(event: ServerEventBody): void;
  /** Sends an `error` event; the session continues. */
  reportError(err: unknown, clientEventId?: string | null): void;
  newId(prefix: string): string;
}

/** The session's effective configuration (helpers run once it is active) and whether it ended. */
export interface SessionState {
  readonly config: RealtimeSessionConfig;
  readonly closed: boolean;
}
