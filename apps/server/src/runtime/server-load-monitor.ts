import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { monitorEventLoopDelay, performance, type IntervalHistogram } from 'node:perf_hooks';
import { LearnedSessionCost, type RecognizerLoad, type ServerLoad, type ServerLoadProbe } from '@svc/core';
import { ownTreeCpuMs } from './process-cpu.js';

export interface ServerLoadMonitorOptions {
  /** CPU cores realtime sessions may use (SVC_REALTIME_CPU_BUDGET). */
  budgetCores: number;
  /** What a session costs until one is learned from the running sessions (SVC_REALTIME_SESSION_CPU). */
  sessionCores: number;
  recognizer?: () => RecognizerLoad | null;
  /** What one 640x640 live avatar's video costs (cores; SVC_REALTIME_AVATAR_CPU). */
  avatarCores?: number;
  /** How often CPU and the event loop are sampled. Default 2 s. */
  sampleMs?: number;
}

/**
 * Share of the CPUs given to realtime sessions by default: the rest is headroom for bursts (turn
 * ends and replies of callers who finish speaking together). The sessions' measured cost times
 * their number stays under it; chosen at the knee of quiet 2-core runs of the voice loop
 * (docs/realtime.md, "Capacity": the largest count of callers whose first reply's p95 stayed under
 * the 500 ms target, at the cost measured there).
 */
const DEFAULT_BUDGET_SHARE = 0.5;

/**
 * Measures what the capacity admission needs (ServerLoad): every `sampleMs` the CPU this process
 * and its children (the decoders) used, over the seconds of input audio the sessions received
 * meanwhile, teaches the core's LearnedSessionCost what one session costs (cores; the configured
 * estimate until then); the event loop's delay (p90 of the window); and, at each read, the
 * recognizer's backlog and queue.
 */
export class ServerLoadMonitor implements ServerLoadProbe {
  private readonly delay: IntervalHistogram = monitorEventLoopDelay({ resolution: 20 });
  private timer: NodeJS.Timeout | null = null;
  private readonly cost: LearnedSessionCost;
  private lagMs = 0;
  private audioMs = 0;
  /** CPU used so far when the current window's audio began (null while no session streams). */
  private cpuMs: number | null = null;
  /** When the current window began (performance.now()). */
  private windowStart = 0;
  /** Live avatars making video now, in 640x640 equivalents (watchLiveAvatars). */
  private liveAvatars: () => number = () => 0;

  constructor(private readonly options: ServerLoadMonitorOptions) {
    this.cost = new LearnedSessionCost(options.sessionCores);
  }

  /** Starts sampling (the realtime module's start hook): the event loop's delay, and CPU every `sampleMs`. */
  start(): void {
    if (this.timer) return;
    this.delay.enable();
    this.timer = setInterval(() => this.sample(), this.options.sampleMs ?? 2000);
    this.timer.unref();
  }

  /** Seconds of input audio all sessions received since start (the metrics). */
  inputAudioSeconds = 0;

  /** A session received `ms` of input audio (the engines' usage observer). */
  inputAudio(ms: number): void {
    // The first audio after an idle spell starts a window: the CPU it is measured against.
    if (this.cpuMs === null) {
      this.cpuMs = ownTreeCpuMs();
      this.windowStart = performance.now();
    }
    this.audioMs += ms;
    this.inputAudioSeconds += ms / 1000;
  }

  /** Seconds of audio the recognizer decoded since start (0 when it does not count). */
  get decodedAudioSeconds(): number {
    return this.options.recognizer?.()?.decodedSeconds ?? 0;
  }

  read(): ServerLoad {
    const recognizer = this.options.recognizer?.() ?? null;
    return {
      budgetCores: this.options.budgetCores,
      sessionCores: this.cost.cores(),
      recognizerBacklogMs: recognizer?.backlogMs ?? 0,
      recognizerQueue: recognizer?.waiting ?? 0,
      eventLoopLagMs: this.lagMs,
      avatarCores: this.avatarCores(),
    };
  }

  /** The measured cost of a session (cores), null before enough audio was seen. */
  get measuredSessionCores(): number | null {
    return this.cost.measured;
  }

  /**
   * Where the live avatars making video now are counted (LandmarkLiveAvatarRenderer.liveLoad, in
   * 640x640 equivalents: a 640x480 one is 0.75). Set when the live avatar starts, which is on the
   * first call that asks for one, so a voice-only server never loads it to answer this.
   */
  watchLiveAvatars(liveLoad: () => number): void {
    this.liveAvatars = liveLoad;
  }

  /** CPU the live avatars' video takes now (cores). */
  private avatarCores(): number {
    return this.liveAvatars() * (this.options.avatarCores ?? 0);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.delay.disable();
  }

  /** One window: CPU per second of input audio, and the event loop's delay. */
  sample(): void {
    // The histogram counts in nanoseconds, from the timer's due time (0 when idle).
    this.lagMs = this.delay.count > 0 ? this.delay.percentile(90) / 1e6 : 0;
    this.delay.reset();
    const audioMs = this.audioMs;
    this.audioMs = 0;
    // No session streamed: nothing to measure, and /proc is not read (an idle server stays idle);
    // the next input audio reads the starting point.
    if (audioMs === 0 || this.cpuMs === null) {
      this.cpuMs = null;
      return;
    }
    const cpuMs = ownTreeCpuMs();
    const now = performance.now();
    // The live avatars' pictures are not a speaking session's cost (they are reserved apart, see
    // sessionCapacity): what they take at their configured cost over this window is left out.
    const used = Math.max(0, cpuMs - this.cpuMs - this.avatarCores() * (now - this.windowStart));
    this.cpuMs = cpuMs;
    this.windowStart = now;
    this.cost.record(used, audioMs, now);
  }
}

/**
 * The CPU cores this process may use: the CPUs it may run on, or fewer when a cgroup (a container's
 * CPU limit) says so. The realtime budget defaults to DEFAULT_BUDGET_SHARE of it.
 */
export function defaultCpuBudget(): number {
  return Math.round(availableCores() * DEFAULT_BUDGET_SHARE * 100) / 100;
}

function availableCores(): number {
  const cpus = availableParallelism();
  try {
    // cgroup v2: "<quota> <period>" or "max <period>".
    const [quota, period] = readFileSync('/sys/fs/cgroup/cpu.max', 'utf8').trim().split(/\s+/);
    if (quota && quota !== 'max' && Number(period) > 0) return Math.min(cpus, Number(quota) / Number(period));
  } catch {
    // no cgroup v2 limit
  }
  return cpus;
}
