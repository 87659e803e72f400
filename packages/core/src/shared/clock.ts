/** Time, behind a port so tests can move it (idle timeouts, token buckets, expiry) without waiting. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Calls fn after ms; returns a cancel function. */
  setTimer(ms: number, fn: () => void): () => void;
}

export const unixSeconds = (ms: number): number => Math.floor(ms / 1000);
