import pLimit, { type LimitFunction } from 'p-limit';
import { abortError, throwIfAborted } from '@svc/adapters-runtime';
import type { PocketsphinxHelper } from './pocketsphinx-helper.js';
import { RECOGNIZER_SAMPLE_RATE } from './recognizer-input.js';

/** How long a turn waited for a free decoder: reported so a too-small pool is seen, not hidden. */
export interface DecoderWait {
  waitedMs: number;
  /** Turns still queued behind this one. */
  queued: number;
}

export interface DecoderPoolStats {
  /** Most decoders the pool may run (SVC_ASR_DECODERS). */
  size: number;
  /** Decoder processes started and alive or loading. */
  started: number;
  busy: number;
  waiting: number;
  /** Turns that found every decoder busy, and their total and longest wait. */
  waits: number;
  totalWaitMs: number;
  maxWaitMs: number;
  /** Decoders started to replace one that died or was killed (a fork from the fork server, or a model load without it). */
  replaced: number;
  /** Decoders stopped after `idleStopMs` unused, beyond those the pool keeps (see DecoderPool). */
  stoppedIdle: number;
  /** Audio sent to the busy decoders and not decoded yet, the largest of them (ms): how far behind real time recognition runs. */
  backlogMs: number;
  /** Seconds of audio decoded since start, by every decoder (the recognizer's work: its CPU follows it). */
  decodedSeconds: number;
}

/**
 * A bounded pool of warm decoders shared by every session. `use()` lends one decoder for the length
 * of a task (a whole turn when streaming). The pool starts with the decoders it is given and grows
 * on demand up to `maxSize` (a new one loads its model while its turn's audio waits; it then stays
 * warm); beyond that a task queues (p-limit keeps the order) and its wait is reported. A decoder
 * whose process died is replaced on its next loan. Sessions that will stream turns hold a
 * reservation (`reserve()`): the pool loads a decoder for each in the background, a few at a time,
 * so a session's first turn finds one ready instead of loading it while its user speaks. Decoders
 * beyond what the pool keeps (those it started with, one per reservation, those lent) are stopped
 * once unused for `idleStopMs`, so that a burst of sessions does not hold its memory until restart.
 */
export class DecoderPool {
  private readonly limit: LimitFunction;
  private readonly idle: PocketsphinxHelper[];
  private readonly stats = { waits: 0, totalWaitMs: 0, maxWaitMs: 0, replaced: 0, stoppedIdle: 0 };
  /** Samples decoded by decoders that are gone. */
  private decodedByGone = 0;

  private readonly all: PocketsphinxHelper[];
  /** Decoders lent to a task right now. */
  private readonly lent = new Set<PocketsphinxHelper>();
  /** Sessions holding a reservation, and decoders loading for them now. */
  private reserved = 0;
  private loadingAhead = 0;
  /** How many it keeps however long they are unused: those it started with. */
  private readonly keep: number;
  /** When each idle decoder was last given back (or started). */
  private readonly idleSince = new Map<PocketsphinxHelper, number>();
  private stopTimer: NodeJS.Timeout | null = null;

  /**
   * `loadsAtOnce`: how many decoders load ahead at a time (a model load is a core's work for a
   * moment). `idleStopMs`: how long a decoder beyond those kept may stay unused before it is stopped.
   */
  constructor(
    helpers: PocketsphinxHelper[],
    private readonly spawn: () => PocketsphinxHelper,
    maxSize: number,
    private readonly onWait: (wait: DecoderWait) => void = () => undefined,
    private readonly loadsAtOnce = 1,
    private readonly idleStopMs = Infinity,
  ) {
    this.idle = [...helpers];
    this.all = [...helpers];
    this.keep = helpers.length;
    this.limit = pLimit(Math.max(maxSize, helpers.length));
  }

  use<T>(signal: AbortSignal | undefined, task: (helper: PocketsphinxHelper) => Promise<T>): Promise<T> {
    throwIfAborted(signal);
    const queuedAt = performance.now();
    const mustWait = this.limit.activeCount >= this.limit.concurrency;
    return this.limit(async () => {
      if (mustWait) this.noteWait(performance.now() - queuedAt);
      // A turn cancelled while it queued gives its place up at once.
      throwIfAborted(signal);
      const helper = this.take();
      this.lent.add(helper);
      try {
        // A decoder that has to load first: a turn cancelled meanwhile leaves it loading for the next one.
        await readyUnlessAborted(helper, signal);
        return await task(helper);
      } finally {
        this.lent.delete(helper);
        // After close() nothing is started again (a decoder killed by close is just dropped).
        if (!this.closed) this.giveBack(helper.alive ? helper : this.replace(helper));
      }
    });
  }

  /**
   * A session that will stream turns: the pool holds a decoder for each reservation (up to its
   * size), loading the missing ones now. Decoders stay warm after the release, as grown ones do.
   * Returns the release (idempotent).
   */
  reserve(): () => void {
    this.reserved++;
    this.loadAhead();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.reserved--;
      this.scheduleStop();
    };
  }

  private giveBack(helper: PocketsphinxHelper): void {
    this.idle.push(helper);
    this.idleSince.set(helper, performance.now());
    this.scheduleStop();
  }

  /** Decoders the pool needs now: those it keeps, one per reservation, those lent. */
  private get needed(): number {
    return Math.max(this.keep, this.reserved + this.lent.size);
  }

  private scheduleStop(): void {
    if (this.stopTimer || this.closed || !Number.isFinite(this.idleStopMs) || this.all.length <= this.needed) return;
    this.stopTimer = setTimeout(() => {
      this.stopTimer = null;
      this.stopIdle();
    }, this.idleStopMs);
    this.stopTimer.unref();
  }

  /** Stops the decoders unused for idleStopMs that the pool does not need, the longest unused first. */
  private stopIdle(): void {
    const now = performance.now();
    const unused = this.idle
      .filter((helper) => helper.loaded && now - (this.idleSince.get(helper) ?? now) >= this.idleStopMs)
      .sort((a, b) => this.idleSince.get(a)! - this.idleSince.get(b)!);
    for (const helper of unused) {
      if (this.all.length <= this.needed) break;
      this.idle.splice(this.idle.indexOf(helper), 1);
      this.forget(helper);
      helper.kill();
      this.stats.stoppedIdle++;
    }
    this.scheduleStop();
  }

  /** A decoder that is gone from the pool: what it decoded still counts. */
  private forget(helper: PocketsphinxHelper): void {
    this.decodedByGone += helper.decodedSamples;
    this.idleSince.delete(helper);
    const index = this.all.indexOf(helper);
    if (index >= 0) this.all.splice(index, 1);
  }

  private loadAhead(): void {
    while (!this.closed && this.loadingAhead < this.loadsAtOnce && this.all.length < Math.min(this.limit.concurrency, this.reserved)) {
      const helper = this.grow();
      this.giveBack(helper);
      this.loadingAhead++;
      void helper.ready
        .catch(() => undefined)
        .finally(() => {
          this.loadingAhead--;
          this.loadAhead();
        });
    }
  }

  get load(): DecoderPoolStats {
    let backlogMs = 0;
    for (const helper of this.lent) backlogMs = Math.max(backlogMs, helper.backlogMs);
    const decoded = this.all.reduce((n, helper) => n + helper.decodedSamples, this.decodedByGone);
    return {
      size: this.limit.concurrency,
      started: this.all.length,
      busy: this.limit.activeCount,
      waiting: this.limit.pendingCount,
      ...this.stats,
      backlogMs,
      decodedSeconds: decoded / RECOGNIZER_SAMPLE_RATE,
    };
  }

  /** Process ids of the decoders alive now (their CPU time is the recognizer's cost). */
  get pids(): number[] {
    return this.all.flatMap((helper) => (helper.alive && helper.pid !== undefined ? [helper.pid] : []));
  }

  private closed = false;

  close(): void {
    this.closed = true;
    if (this.stopTimer) clearTimeout(this.stopTimer);
    this.limit.clearQueue();
    for (const helper of this.all.splice(0)) helper.kill();
    this.idle.length = 0;
  }

  private take(): PocketsphinxHelper {
    // p-limit lets at most maxSize tasks in, so a task that finds no idle decoder may start one. A
    // loaded decoder first: one still loading ahead (reserve) is for a later turn.
    const loaded = this.idle.findLastIndex((h) => h.loaded);
    const helper = (loaded >= 0 ? this.idle.splice(loaded, 1)[0] : this.idle.pop()) ?? this.grow();
    this.idleSince.delete(helper);
    return helper.alive ? helper : this.replace(helper);
  }

  private grow(): PocketsphinxHelper {
    if (this.closed) throw new Error('The speech decoder pool is closed.');
    const helper = this.spawn();
    this.all.push(helper);
    return helper;
  }

  private replace(dead: PocketsphinxHelper): PocketsphinxHelper {
    this.stats.replaced++;
    this.forget(dead);
    return this.grow();
  }

  private noteWait(waitedMs: number): void {
    this.stats.waits++;
    this.stats.totalWaitMs += waitedMs;
    this.stats.maxWaitMs = Math.max(this.stats.maxWaitMs, waitedMs);
    this.onWait({ waitedMs, queued: this.limit.pendingCount });
  }
}

function readyUnlessAborted(helper: PocketsphinxHelper, signal: AbortSignal | undefined): Promise<void> {
  throwIfAborted(signal);
  if (!signal) return helper.ready;
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    helper.ready.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
