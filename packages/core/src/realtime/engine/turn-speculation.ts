import { DEFAULT_MAX_EVENT_LOOP_LAG_MS, DEFAULT_MAX_RECOGNIZER_BACKLOG_MS, type CapacityLimits } from '../admission/capacity-policy.js';
import type { ServerLoadProbe } from '../admission/server-load.js';
import { normalizeTranscript, type SpeculativeReply } from '../response/speculative-reply.js';

export interface TurnSpeculationDeps {
  /** Whether replies are begun before the turn is known to be over (SVC_REALTIME_SPECULATION). */
  enabled: boolean;
  /** The server's load: nothing is begun on a guess while it is behind. */
  load?: ServerLoadProbe;
  /** Where "behind" begins: the admission's load guards (their defaults when absent). */
  loadLimits?: LoadGuards;
  /** Begins the reply to these words (ResponseCoordinator.prepare); null when nothing can be. */
  prepare(transcript: string): SpeculativeReply | null;
}

/**
 * Replies begun per turn at most (each pause, and each change of the partial words during one,
 * begins one anew): the work a turn may spend on guesses is bounded. A long turn has more pauses
 * (semantic_vad begins at a short one): one more reply may be begun per ATTEMPT_PER_SPEECH_MS of its
 * speech, so the guesses at its early pauses do not leave its end with none.
 */
const MAX_ATTEMPTS_PER_TURN = 3;
const ATTEMPT_PER_SPEECH_MS = 2000;

/** The admission's load guards (SVC_REALTIME_MAX_RECOGNIZER_BACKLOG_MS, SVC_REALTIME_MAX_EVENT_LOOP_LAG_MS). */
export type LoadGuards = Pick<CapacityLimits, 'maxRecognizerBacklogMs' | 'maxEventLoopLagMs'>;

const DEFAULT_GUARDS: LoadGuards = {
  maxRecognizerBacklogMs: DEFAULT_MAX_RECOGNIZER_BACKLOG_MS,
  maxEventLoopLagMs: DEFAULT_MAX_EVENT_LOOP_LAG_MS,
};

/**
 * Whether the server is behind by the admission's own guards (a turn waiting for a decoder, the
 * recognizer or the event loop late): the sessions it serves come first, nothing is begun on a guess.
 */
function tooLoadedToSpeculate(load: ServerLoadProbe | undefined, guards: LoadGuards): boolean {
  if (!load) return false;
  const now = load.read();
  return (
    now.recognizerQueue > 0 || now.recognizerBacklogMs > guards.maxRecognizerBacklogMs || now.eventLoopLagMs > guards.maxEventLoopLagMs
  );
}

/**
 * A turn's speculation: at a pause that may end the turn, the reply to the words so far is begun
 * (SpeculativeReply: nothing the client sees); it is discarded when the user goes on, begun anew
 * when the words change, and handed to the turn's response when the turn ends.
 */
export class TurnSpeculation {
  private current: SpeculativeReply | null = null;
  private attempts = 0;

  constructor(private readonly deps: TurnSpeculationDeps) {}

  /** Whether replies are begun at pauses at all (SVC_REALTIME_SPECULATION). */
  get enabled(): boolean {
    return this.deps.enabled;
  }

  /** Whether a reply is being prepared now. */
  get preparing(): boolean {
    return this.current !== null && !this.current.discarded;
  }

  /**
   * A pause that may end the turn, with the words heard so far: their reply is begun (again if they
   * changed). `behindMs`: audio the recognizer has not reached yet; `silenceMs`: the silence heard
   * since the speech. While the recognizer has not reached the speech's end its words are not the
   * turn's yet and nothing is begun on them (a guess on stale words is work thrown away); the
   * silence after the end it may still be decoding changes no word (the semantic judge trusts the
   * words on the same terms), and if it does, the changed words begin the reply anew. `speechMs`:
   * the turn's speech so far (its budget of guesses grows with it).
   */
  consider(partial: string, behindMs = 0, silenceMs = 0, speechMs = 0): void {
    if (!this.deps.enabled || behindMs > silenceMs) return;
    const words = normalizeTranscript(partial);
    // Nothing heard yet: there is nothing to answer.
    if (!words) return;
    if (this.preparing && normalizeTranscript(this.current!.transcript) === words) return;
    this.discard();
    const budget = MAX_ATTEMPTS_PER_TURN + Math.floor(speechMs / ATTEMPT_PER_SPEECH_MS);
    if (this.attempts >= budget || tooLoadedToSpeculate(this.deps.load, this.deps.loadLimits ?? DEFAULT_GUARDS)) return;
    this.current = this.deps.prepare(partial);
    // Nothing begun (a response still running, a turn still being transcribed) spends nothing:
    // counted, such refusals during one pause used up the turn, and its end got no reply begun.
    if (this.current) this.attempts++;
  }

  /** The user went on: nothing prepared is kept. */
  discard(): void {
    this.current?.discard();
    this.current = null;
  }

  /** The turn ended: what was prepared, for its response (null: nothing). The next turn starts afresh. */
  take(): SpeculativeReply | null {
    const prepared = this.preparing ? this.current : null;
    this.current = null;
    this.attempts = 0;
    return prepared;
  }

  /** A new turn, or none (dropped, committed, cleared): nothing prepared is kept, the attempts start over. */
  reset(): void {
    this.discard();
    this.attempts = 0;
  }
}
