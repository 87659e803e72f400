/** What one frame shows: the mouth shape, the eyelids and the head's small motion. */
export interface FacePose {
  /** Mouth opening, 0 closed .. 1 wide open ("aa"). */
  open: number;
  /** Lips spread sideways (E, I, S), 0..1. */
  spread: number;
  /** Lips rounded and narrowed (O, U, W), 0..1. */
  round: number;
  /** Eyelid closure, 0 open .. 1 shut. */
  blink: number;
  /** Head translation in pixels and roll in radians (about the neck). */
  headX: number;
  headY: number;
  headRoll: number;
}

export const REST_POSE: FacePose = { open: 0, spread: 0, round: 0, blink: 0, headX: 0, headY: 0, headRoll: 0 };

/** A mouth shape alone. */
export interface MouthShape {
  open: number;
  spread: number;
  round: number;
}
