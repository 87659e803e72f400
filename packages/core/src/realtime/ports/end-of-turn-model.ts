/**
 * A learned end-of-turn model an operator brings (SVC_TURN_MODEL: Smart Turn v3's ONNX export):
 * at a pause that semantic_vad's rule would wait out (finished words said with a level or rising
 * voice, or too few words to judge), it says from the audio whether the user has finished, and a
 * finished turn then ends without the rest of the wait. Words the rule reads as unfinished ("... and")
 * still wait, and a turn the rule ends at once is not held back for it. Optional: without one the
 * rule alone decides (docs/realtime.md, semantic_vad).
 */
export interface EndOfTurnModel {
  /** The most audio it judges (ms): the end of the turn up to the pause, its onset included when shorter. */
  readonly contextMs: number;
  /** The probability from which the turn counts as finished (the operator's threshold). */
  readonly threshold: number;
  /**
   * The probability (0 to 1) that the speaker has finished, from `samples`: mono PCM16 at
   * `sampleRate`, ending at the pause (its silence included). Rejects when the model cannot run;
   * the rule's wait then stands.
   */
  finishedProbability(samples: Int16Array, sampleRate: number, signal: AbortSignal): Promise<number>;
  /** Releases the model; called once at shutdown. */
  close?(): Promise<void> | void;
}

/**
 * What became of one question to the model (the metrics): `ended` the turn at the pause, `waited`
 * (below the threshold: the rule's wait stood), `late` (the pause was over, speech resumed or the
 * turn ended, before the answer came), `failed` (the model could not run).
 */
export type EndOfTurnVerdict = 'ended' | 'waited' | 'late' | 'failed';
