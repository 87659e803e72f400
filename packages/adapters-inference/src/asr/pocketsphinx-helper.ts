import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Debian's interpreter: python3-pocketsphinx installs into its dist-packages (not a pyenv one). */
export const DEBIAN_PYTHON = '/usr/bin/python3';
/** Our helper script (see its docstring for the protocol); shipped in the package, not in dist. */
export const POCKETSPHINX_HELPER_SCRIPT = fileURLToPath(new URL('../../../python/pocketsphinx_stream.py', import.meta.url));

/** A model load longer than this means something is wrong (it takes ~0.5 s here). */
const READY_TIMEOUT_MS = 20_000;
const STDERR_TAIL_CHARS = 2000;
/** 100 ms at 16 kHz. */
const MAX_PIECE_SAMPLES = 1600;

/**
 * One long-lived python3-pocketsphinx process holding one warm decoder (model loaded once). It
 * decodes one utterance at a time: `begin()`, `write()` 16 kHz samples as they arrive (partial
 * hypotheses come back while the user speaks), then `end()` runs only the final pass.
 *
 * A process rather than an in-process addon: decoding runs on another core without blocking the
 * event loop, a crash takes down one decoder instead of the server, and nothing is compiled at
 * install time. Measured here: ~0.5 s to load, final pass 15-70 ms on 3-7 s sentences.
 */
export class PocketsphinxHelper {
  private readonly child: ChildProcessWithoutNullStreams;
  private lines = '';
  private stderr = '';
  private readonly finals: { resolve(text: string): void; reject(err: Error): void }[] = [];
  private deadError: Error | null = null;
  readonly ready: Promise<void>;
  partial = '';
  /** The `T` line before the last `F` of a `W` request. */
  private wordTimes: { word: string; start: number; end: number }[] = [];
  /** The `Q` line of the last `W` request. */
  private confidence: UtteranceConfidence = { avgLogprob: null, noSpeech: 1 };
  /** Called with the settled words so far (`K` lines) of an utterance begun with `settled`. */
  private onSettled: ((text: string) => void) | null = null;
  /**
   * False when this decoder cannot set its cepstral mean (`R nocmn`: another sphinxbase build);
   * it then carries the normalization from one utterance to the next as pocketsphinx does.
   */
  normalizes = false;
  /** The cepstral mean the last finished utterance left (see the helper script), '' before one. */
  cepstralMean = '';

  constructor(python: string, script: string, decoderArgs: readonly string[]) {
    this.child = spawn(python, ['-u', script, ...decoderArgs], { stdio: ['pipe', 'pipe', 'pipe'] });
    let markReady!: () => void;
    let failReady!: (err: Error) => void;
    this.ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failReady = reject;
    });
    this.ready.catch(() => undefined);
    const readyTimer = setTimeout(() => failReady(new Error('pocketsphinx helper did not load its model in time')), READY_TIMEOUT_MS);
    this.child.stdout.setEncoding('utf8').on('data', (text: string) => {
      this.lines += text;
      let nl: number;
      while ((nl = this.lines.indexOf('\n')) >= 0) {
        const line = this.lines.slice(0, nl);
        this.lines = this.lines.slice(nl + 1);
        if (line === 'R' || line.startsWith('R ')) {
          clearTimeout(readyTimer);
          this.normalizes = line === 'R';
          markReady();
        } else this.onLine(line);
      }
    });
    this.child.stderr.setEncoding('utf8').on('data', (text: string) => (this.stderr = (this.stderr + text).slice(-STDERR_TAIL_CHARS)));
    // A write to a helper that just died must not crash the server; the exit handler reports it.
    this.child.stdin.on('error', () => undefined);
    this.child.on('error', (err) => this.die(new Error(`pocketsphinx helper could not start (${python}): ${err.message}`)));
    this.child.on('exit', (code, signal) => {
      clearTimeout(readyTimer);
      const err = new Error(`pocketsphinx helper exited (${signal ?? `code ${code}`}): ${this.stderr.trim() || 'no output on stderr'}`);
      failReady(err);
      this.die(err);
    });
  }

  get alive(): boolean {
    return this.deadError === null;
  }

  /**
   * Starts an utterance from the given cepstral mean (what the same speaker's previous utterance
   * left, as `cepstralMean` reported it) or, with none, from the model's initial one. `fresh`: a
   * stream of its own (noise and channel estimates start over, word times count from 0).
   */
  begin(cepstralMean = '', fresh = false): void {
    this.partial = '';
    this.cepstralMean = '';
    this.onSettled = null;
    this.send(`${fresh ? 'N' : 'S'}${cepstralMean ? ` ${cepstralMean}` : ''}\n`);
  }

  /**
   * A fresh stream (as `begin('', true)`) that also reports, while it decodes, the words that have
   * settled: those the decoder passed by a second or more, which its final pass rarely changes.
   */
  beginReportingSettled(onSettled: (text: string) => void): void {
    this.partial = '';
    this.cepstralMean = '';
    this.onSettled = onSettled;
    this.send('L\n');
  }

  /**
   * 16 kHz mono s16 samples of the utterance in progress. Sent in pieces of at most 100 ms: the
   * helper refreshes the speaker normalization after each, so a whole turn written at once (a
   * manual commit) adapts as one streamed in does.
   */
  write(samples: Int16Array): void {
    for (let at = 0; at < samples.length; at += MAX_PIECE_SAMPLES) {
      const piece = samples.subarray(at, at + MAX_PIECE_SAMPLES);
      this.send(`A ${piece.byteLength}\n`);
      this.send(new Uint8Array(piece.buffer, piece.byteOffset, piece.byteLength));
    }
  }

  /** Final pass of the utterance: its text. */
  end(): Promise<string> {
    return this.request('E\n');
  }

  /**
   * Final pass with the time of every word (seconds from the start of an utterance begun `fresh`)
   * and how sure the decoder is of them (see the helper script's `Q` line).
   */
  async endWithWordTimes(): Promise<{ text: string; words: { word: string; start: number; end: number }[]; confidence: UtteranceConfidence }> {
    this.wordTimes = [];
    this.confidence = { avgLogprob: null, noSpeech: 1 };
    const text = await this.request('W\n');
    this.onSettled = null;
    return { text, words: this.wordTimes, confidence: this.confidence };
  }

  /** Drops the utterance in progress; resolves once the decoder is free again. */
  async drop(): Promise<void> {
    await this.request('X\n');
  }

  kill(): void {
    this.die(new Error('pocketsphinx helper stopped'));
    this.child.kill('SIGKILL');
  }

  private request(line: string): Promise<string> {
    if (this.deadError) return Promise.reject(this.deadError);
    return new Promise((resolve, reject) => {
      this.finals.push({ resolve, reject });
      this.send(line);
    });
  }

  private send(data: string | Uint8Array): void {
    if (this.deadError) return;
    this.child.stdin.write(data);
  }

  private onLine(line: string): void {
    if (line.startsWith('P ')) this.partial = line.slice(2);
    else if (line.startsWith('T ')) this.wordTimes = parseWordTimes(line.slice(2));
    else if (line.startsWith('K ')) this.onSettled?.(line.slice(2));
    else if (line.startsWith('Q ')) this.confidence = parseConfidence(line.slice(2));
    else if (line.startsWith('C ')) this.cepstralMean = line.slice(2);
    else if (line.startsWith('F ')) this.finals.shift()?.resolve(line.slice(2));
    // A failed request (the helper keeps running): the waiting caller hears why.
    else if (line.startsWith('!')) this.finals.shift()?.reject(new Error(`pocketsphinx: ${line.slice(1)}`));
  }

  private die(err: Error): void {
    if (this.deadError) return;
    this.deadError = err;
    for (const waiting of this.finals.splice(0)) waiting.reject(err);
  }
}

/** How sure the decoder is of an utterance (the `Q` line of a `W` request). */
export interface UtteranceConfidence {
  /** Mean natural log of the words' lattice posteriors; null when it could not be computed. */
  avgLogprob: number | null;
  /** Share (0..1) of the utterance's 100 ms pieces pocketsphinx's voice activity detector did not call speech. */
  noSpeech: number;
}

/** `<avg_logprob or -> <no_speech>` -> the figures (anything unreadable: unknown). */
function parseConfidence(text: string): UtteranceConfidence {
  const [average, noSpeech] = text.trim().split(/\s+/);
  const avg = average === '-' ? NaN : Number(average);
  const share = Number(noSpeech);
  return { avgLogprob: Number.isFinite(avg) ? Math.min(0, avg) : null, noSpeech: Number.isFinite(share) ? Math.min(1, Math.max(0, share)) : 1 };
}

/** `word start end word start end ...` -> word times. */
function parseWordTimes(text: string): { word: string; start: number; end: number }[] {
  const parts = text.trim().split(/\s+/).filter(Boolean);
  const words: { word: string; start: number; end: number }[] = [];
  for (let i = 0; i + 2 < parts.length; i += 3) words.push({ word: parts[i]!, start: Number(parts[i + 1]), end: Number(parts[i + 2]) });
  return words;
}
