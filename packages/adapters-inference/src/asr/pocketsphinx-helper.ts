import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Debian's interpreter: python3-pocketsphinx installs into its dist-packages (not a pyenv one). */
export const DEBIAN_PYTHON = '/usr/bin/python3';
/** Our helper script (see its docstring for the protocol); shipped in the package, not in dist. */
export const POCKETSPHINX_HELPER_SCRIPT = fileURLToPath(new URL('../../../python/pocketsphinx_stream.py', import.meta.url));

/**
 * A model load longer than this means something is wrong: it takes ~0.5 s on a quiet machine, and
 * 4-20 s while a loaded 2-core machine starts a server's warm decoders.
 */
const READY_TIMEOUT_MS = 60_000;
const STDERR_TAIL_CHARS = 2000;
/**
 * Audio reaches the decoder in pieces of 100 ms at 16 kHz, whatever size the client appends: each
 * piece is one pipe write, one wake-up of the helper, one partial hypothesis and one refresh of the
 * speaker normalization. Clients append 20-40 ms (browsers, SDKs); fed as they came, the decoders
 * cost ~6-16 % more CPU for the same audio (measured side by side, docs/benchmarks.md) and adapted
 * their cepstral mean five times as often as the 100 ms the word error rates were measured with.
 */
export const DECODER_PIECE_SAMPLES = 1600;
const SAMPLES_PER_MS = 16;

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
  /**
   * False when this decoder cannot set its cepstral mean (`R nocmn`: another sphinxbase build);
   * it then carries the normalization from one utterance to the next as pocketsphinx does.
   */
  normalizes = false;
  /** The cepstral mean the last finished utterance left (see the helper script), '' before one. */
  cepstralMean = '';
  /** Samples of the utterance not yet sent (less than a piece), in `pending[0..pendingLength)`. */
  private pending = new Int16Array(DECODER_PIECE_SAMPLES);
  private pendingLength = 0;
  /** Sizes of the pieces sent and not yet answered (the helper answers each once decoded). */
  private readonly unanswered: number[] = [];
  private unansweredSamples = 0;
  /** A failure the helper reported while nobody waited for an answer: the utterance's end hears it. */
  private failure: Error | null = null;

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
    this.pendingLength = 0;
    this.failure = null;
    this.send(`${fresh ? 'N' : 'S'}${cepstralMean ? ` ${cepstralMean}` : ''}\n`);
  }

  /**
   * 16 kHz mono s16 samples of the utterance in progress, sent in pieces of exactly 100 ms (the
   * rest waits for the next write or the end): the helper refreshes the speaker normalization
   * after each, so a whole turn written at once (a manual commit) adapts as one streamed in does,
   * at any append size.
   */
  write(samples: Int16Array): void {
    let at = 0;
    if (this.pendingLength > 0) {
      at = Math.min(samples.length, DECODER_PIECE_SAMPLES - this.pendingLength);
      this.pending.set(samples.subarray(0, at), this.pendingLength);
      this.pendingLength += at;
      if (this.pendingLength < DECODER_PIECE_SAMPLES) return;
      this.sendPiece(this.pending);
      this.pendingLength = 0;
    }
    for (; samples.length - at >= DECODER_PIECE_SAMPLES; at += DECODER_PIECE_SAMPLES) this.sendPiece(samples.subarray(at, at + DECODER_PIECE_SAMPLES));
    this.pending.set(samples.subarray(at), 0);
    this.pendingLength = samples.length - at;
  }

  /** Milliseconds of audio sent to the decoder and not decoded yet: how far behind real time it is. */
  get backlogMs(): number {
    return (this.unansweredSamples + this.pendingLength) / SAMPLES_PER_MS;
  }

  /** Process id of the decoder (its CPU time is read from /proc by the capacity probe). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Final pass of the utterance: its text. */
  end(): Promise<string> {
    this.flush();
    return this.request('E\n');
  }

  /** Final pass with the time of every word (seconds from the start of an utterance begun `fresh`). */
  async endWithWordTimes(): Promise<{ text: string; words: { word: string; start: number; end: number }[] }> {
    this.flush();
    this.wordTimes = [];
    const text = await this.request('W\n');
    return { text, words: this.wordTimes };
  }

  /** Drops the utterance in progress; resolves once the decoder is free again. */
  async drop(): Promise<void> {
    this.pendingLength = 0;
    await this.request('X\n');
  }

  kill(): void {
    this.die(new Error('pocketsphinx helper stopped'));
    this.child.kill('SIGKILL');
  }

  /** The last partial piece, at the end of an utterance. */
  private flush(): void {
    if (this.pendingLength > 0) this.sendPiece(this.pending.subarray(0, this.pendingLength));
    this.pendingLength = 0;
  }

  private sendPiece(piece: Int16Array): void {
    if (this.deadError) return;
    this.unanswered.push(piece.length);
    this.unansweredSamples += piece.length;
    // Header and samples in one write (one system call, one wake-up of the helper); a copy, so the
    // reused pending buffer may change while a full pipe still holds the piece.
    const header = `A ${piece.byteLength}\n`;
    const message = Buffer.allocUnsafe(header.length + piece.byteLength);
    message.write(header, 0, 'latin1');
    message.set(new Uint8Array(piece.buffer, piece.byteOffset, piece.byteLength), header.length);
    this.send(message);
  }

  private request(line: string): Promise<string> {
    if (this.deadError) return Promise.reject(this.deadError);
    if (this.failure && line !== 'X\n') {
      const failure = this.failure;
      this.failure = null;
      return Promise.reject(failure);
    }
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
    if (line === 'P' || line.startsWith('P ')) {
      this.unansweredSamples -= this.unanswered.shift() ?? 0;
      if (line.length > 1) this.partial = line.slice(2);
    }
    else if (line.startsWith('T ')) this.wordTimes = parseWordTimes(line.slice(2));
    else if (line.startsWith('C ')) this.cepstralMean = line.slice(2);
    else if (line.startsWith('F ')) this.finals.shift()?.resolve(line.slice(2));
    // A failed request (the helper keeps running): the waiting caller hears why, or the next one.
    else if (line.startsWith('!')) {
      const err = new Error(`pocketsphinx: ${line.slice(1)}`);
      const waiting = this.finals.shift();
      if (waiting) waiting.reject(err);
      else this.failure = err;
    }
  }

  private die(err: Error): void {
    if (this.deadError) return;
    this.deadError = err;
    this.unanswered.length = 0;
    this.unansweredSamples = 0;
    this.pendingLength = 0;
    for (const waiting of this.finals.splice(0)) waiting.reject(err);
  }
}

/** `word start end word start end ...` -> word times. */
function parseWordTimes(text: string): { word: string; start: number; end: number }[] {
  const parts = text.trim().split(/\s+/).filter(Boolean);
  const words: { word: string; start: number; end: number }[] = [];
  for (let i = 0; i + 2 < parts.length; i += 3) words.push({ word: parts[i]!, start: Number(parts[i + 1]), end: Number(parts[i + 2]) });
  return words;
}
