/** Less input audio than this over the horizon (ms: one session streaming for 2 s) is too little to learn a cost from. */
const MIN_LEARNED_AUDIO_MS = 2000;
/** How far back the windows a cost is learned from reach (ms of measuring time): newer sessions, newer cost. */
const DEFAULT_HORIZON_MS = 60_000;

interface CostWindow {
  cpuMs: number;
  audioMs: number;
  endMs: number;
}

/**
 * What one session costs (cores), learned from the sessions running here: the CPU the server used
 * (its process and decoders) over the seconds of input audio the sessions received, summed over the
 * windows of the last minute of measuring (the CPU of a session's silences counts: callers listen
 * as well as speak, and that mix is what the admitted callers cost). Before enough audio was seen
 * the configured estimate stands in; once learned, the measured cost is used as it is, lower or
 * higher than the estimate (a fixed floor kept a 2-core server at the estimate's count of callers
 * while they used a third of the machine). An idle server keeps what it last learned.
 */
export class LearnedSessionCost {
  private windows: CostWindow[] = [];

  constructor(
    /** Cores one session is taken to cost until a cost is learned. */
    private readonly fallbackCores: number,
    private readonly horizonMs = DEFAULT_HORIZON_MS,
  ) {}

  /** One measuring window ending at `endMs`: `cpuMs` of CPU used while the sessions received `audioMs` of input audio. */
  record(cpuMs: number, audioMs: number, endMs: number): void {
    if (!(audioMs > 0) || !(cpuMs >= 0)) return;
    this.windows.push({ cpuMs, audioMs, endMs });
    this.windows = this.windows.filter((w) => w.endMs > endMs - this.horizonMs);
  }

  /** The learned cost (cores per session), null before MIN_LEARNED_AUDIO_MS of audio was measured. */
  get measured(): number | null {
    let cpuMs = 0;
    let audioMs = 0;
    for (const w of this.windows) {
      cpuMs += w.cpuMs;
      audioMs += w.audioMs;
    }
    return audioMs >= MIN_LEARNED_AUDIO_MS ? cpuMs / audioMs : null;
  }

  /** What a session is taken to cost for admission: the learned cost, or the estimate before one. */
  cores(): number {
    return this.measured ?? this.fallbackCores;
  }
}
