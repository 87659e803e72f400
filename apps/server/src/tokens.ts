/** Tokens for objects only the composition root knows (the core's ports have theirs in @svc/core). */
export const SERVER_TOKENS = {
  Config: Symbol.for('svc.server.Config'),
  DataSource: Symbol.for('svc.server.DataSource'),
  Metrics: Symbol.for('svc.server.Metrics'),
  ManageApiKeys: Symbol.for('svc.server.ManageApiKeys'),
  /** The voices capability as wired by composition/voices.ts (use cases + routes). */
  Voices: Symbol.for('svc.server.Voices'),
} as const;
