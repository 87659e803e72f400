/**
 * What a realtime server knows about its own load, read when a session asks to be admitted. The
 * numbers are measured by the server (apps/server's ServerLoadMonitor: CPU of the process and its
 * decoder processes, the recognizer's backlog, the event loop's delay); the core only decides.
 */
export interface ServerLoad {
  /** CPU cores realtime sessions may use in this process and its decoder processes. */
  budgetCores: number;
  /** What one session costs (cores): learned from the running sessions (LearnedSessionCost), the configured estimate before. */
  sessionCores: number;
  /** Audio given to the speech recognizer and not decoded yet, the worst decoder (ms): how far behind real time it runs. */
  recognizerBacklogMs: number;
  /** Turns waiting for a free speech decoder. */
  recognizerQueue: number;
  /** How late the event loop runs its timers (p90 over the last few seconds, ms). */
  eventLoopLagMs: number;
  /**
   * CPU the live avatars' video takes now (cores), on top of their calls' sessions: taken out of the
   * budget before it is divided among speaking sessions, and out of what a session is measured to
   * cost. 0 (or absent) without a live avatar.
   */
  avatarCores?: number;
}

/** A port: the current load, without waiting (the monitor samples in the background). */
export interface ServerLoadProbe {
  read(): ServerLoad;
}
