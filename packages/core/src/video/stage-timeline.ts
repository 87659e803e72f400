import type { Clock } from '../shared/clock.js';

/** One step of a request: when it ended (ms since the request arrived), or how long it took when measured elsewhere. */
export interface StageMark {
  stage: string;
  /** Milliseconds from the request's arrival to the end of this stage (absent for a `durationMs` entry). */
  atMs?: number;
  /** How long the stage took, for steps timed inside another thread (the face detector's). */
  durationMs?: number;
}

/**
 * Where the time of one live video request goes: body parsed, photo checked, face prepared (with
 * the detector's own steps), speech ready, job stored, render started, first frame, ffmpeg started,
 * first fragment out. Diagnostics only (the log and `npm run bench -- video`); it never changes what
 * the request does. Times come from the Clock port (ms resolution, enough for stages of 10 ms and up).
 */
export class StageTimeline {
  private readonly marks: StageMark[] = [];

  constructor(
    private readonly clock: Clock,
    readonly startedAt: number = clock.now(),
  ) {}

  /** The stage ended now (the first mark of a stage wins: a repeated stage keeps its first time). */
  mark(stage: string): void {
    if (this.marks.some((m) => m.stage === stage && m.atMs !== undefined)) return;
    this.marks.push({ stage, atMs: this.clock.now() - this.startedAt });
  }

  /** Durations measured elsewhere (ms), recorded as `prefix.step`. */
  durations(prefix: string, steps: Readonly<Record<string, number>>): void {
    for (const [step, ms] of Object.entries(steps)) this.marks.push({ stage: `${prefix}.${step}`, durationMs: Math.round(ms) });
  }

  entries(): readonly StageMark[] {
    return this.marks;
  }

  /** `{ stage: ms }`, marks as times since arrival and durations as `<stage> (took)`: one log field. */
  summary(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const m of this.marks) {
      if (m.atMs !== undefined) out[m.stage] = m.atMs;
      else out[`${m.stage} (took)`] = m.durationMs!;
    }
    return out;
  }
}
