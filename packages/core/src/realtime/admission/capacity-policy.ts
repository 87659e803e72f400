import type { ServerLoad } from './server-load.js';

export interface CapacityLimits {
  /** A fixed number of sessions in this process instead of the CPU arithmetic (null: budget / session cost). */
  fixedSessions: number | null;
  /** Past this recognizer backlog the admitted sessions' turns are already late: no new session. */
  maxRecognizerBacklogMs: number;
  /** Past this event-loop delay the admitted sessions' audio is already late: no new session. */
  maxEventLoopLagMs: number;
}

/**
 * Recognition more than a second behind real time means the turns of the sessions already open
 * end a second late (the final pass waits for the backlog): the target is 500 ms from the end of
 * a turn to the first reply audio.
 */
export const DEFAULT_MAX_RECOGNIZER_BACKLOG_MS = 1000;
/** Reply audio leaves in 40 ms slices paced by timers; 10 % of timers 100 ms late is audible. */
export const DEFAULT_MAX_EVENT_LOOP_LAG_MS = 100;

export type CapacityVerdict = { admit: true } | { admit: false; reason: string };

/**
 * Whether one more session fits, given the sessions this process already serves and its load.
 * Each open session reserves what a session is measured to cost (LearnedSessionCost), whether it
 * speaks yet or not (callers admitted together would otherwise all look free until they all speak
 * at once): capacity is floor(budget / session cost), the budget set at the measured knee. Two measured guards refuse even below that count, because they
 * show the sessions already admitted being served late: a recognizer behind real time, an event
 * loop running late (another tenant on the machine, heavier sessions than estimated).
 * Reasons are short: they travel as a WebSocket close reason (at most 123 bytes).
 */
export function capacityVerdict(openSessions: number, load: ServerLoad, limits: CapacityLimits): CapacityVerdict {
  if (load.recognizerQueue > 0) {
    return refuse(`${load.recognizerQueue} turn${load.recognizerQueue === 1 ? '' : 's'} waiting for a speech decoder`);
  }
  if (load.recognizerBacklogMs > limits.maxRecognizerBacklogMs) {
    return refuse(`speech recognition ${(load.recognizerBacklogMs / 1000).toFixed(1)} s behind real time`);
  }
  if (load.eventLoopLagMs > limits.maxEventLoopLagMs) {
    return refuse(`event loop ${Math.round(load.eventLoopLagMs)} ms late`);
  }
  const capacity = sessionCapacity(load, limits);
  if (openSessions >= capacity) {
    const avatars = load.avatarCores ? ` + ${round2(load.avatarCores)} for live avatars` : '';
    return refuse(
      limits.fixedSessions !== null
        ? `${openSessions} of ${capacity} sessions open`
        : `${openSessions} sessions open at ${round2(load.sessionCores)} CPU each${avatars} of ${round2(load.budgetCores)}`,
    );
  }
  return { admit: true };
}

/**
 * Speaking sessions this process can serve: the fixed number, or the CPU budget over what one costs,
 * once the live avatars' video has taken its share (an avatar call is a session too: its voice is
 * counted as one, its pictures here). An avatar's video costs several speaking sessions' worth, so
 * leaving it in the measured per-session cost instead made every session look dearer and refused
 * voice callers the budget still had room for (docs/realtime.md, "Capacity").
 */
export function sessionCapacity(load: ServerLoad, limits: CapacityLimits): number {
  if (limits.fixedSessions !== null) return limits.fixedSessions;
  if (!(load.sessionCores > 0)) return Number.POSITIVE_INFINITY;
  const left = Math.max(0, load.budgetCores - (load.avatarCores ?? 0));
  return Math.floor(left / load.sessionCores + 1e-9);
}

/**
 * Slots a key that already holds sessions may not take: one in six of the capacity (none below six),
 * kept for keys that hold none, so one key cannot lock every other out of a nearly full server.
 * Below six slots a reserve would cost a lone key too large a share of a small server.
 */
export function slotsReservedForNewKeys(capacity: number): number {
  return Number.isFinite(capacity) ? Math.floor(capacity / 6) : 0;
}

/**
 * Fairness across API keys, after capacityVerdict admitted: a key that already holds sessions in
 * this process is refused the last `slotsReservedForNewKeys` slots, which go to keys that hold none
 * (a newcomer of the heavy key is refused, not a session already open). A key alone therefore gets
 * at most capacity minus the reserve while nobody else is connected: the price of a slot being free
 * when another key comes.
 */
export function fairShareVerdict(openSessions: number, keySessions: number, capacity: number): CapacityVerdict {
  const reserved = slotsReservedForNewKeys(capacity);
  if (keySessions === 0 || openSessions < capacity - reserved) return { admit: true };
  return {
    admit: false,
    reason: `server nearly full: this key holds ${keySessions} of ${openSessions} sessions, the last ${reserved} of ${capacity} kept for other keys; retry later`,
  };
}

const round2 = (x: number) => Math.round(x * 100) / 100;

function refuse(why: string): CapacityVerdict {
  return { admit: false, reason: `server at capacity (${why}); retry later` };
}
