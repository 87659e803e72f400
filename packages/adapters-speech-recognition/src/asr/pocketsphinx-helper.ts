import { fileURLToPath } from 'node:url';
import { startDecoderProcess, type DecoderProcess } from './decoder-process.js';

/** Debian's interpreter: python3-pocketsphinx installs into its dist-packages (not a pyenv one). */
export const DEBIAN_PYTHON = '/usr/bin/python3';
/** Our helper script (see its docstring for the protocol); shipped in the package, not in dist. */
export const POCKETSPHINX_HELPER_SCRIPT = fileURLToPath(new URL('../../../python/pocketsphinx_stream.py', import.meta.url));

/**
 * A model load longer than this means something is wrong: far above a load on a quiet machine, and
 * above what a loaded 2-core machine takes while it starts a server's warm decoders together.
 */
const READY_TIMEOUT_MS = 60_000;
const STDERR_TAIL_CHARS = 2000;
/**
 * Audio reaches the decoder in pieces of 100 ms at 16 kHz, whatever size the client appends: each
 * piece is one pipe write, one wake-up of the helper, one partial hypothesis and one refresh of the
 * speaker normalization. Clients append 20-40 ms (browsers, SDKs); fed as they came, the decoders
 * cost more CPU for the same audio (docs/realtime.md, "What a speaking session costs") and adapted
 * their cepstral mean more often than with the 100 ms pieces the word error rates are taken with.
 */
export const DECODER_PIECE_SAMPLES = 1600;
const SAMPLES_PER_MS = 16;

/** A caller waiting for the F (or !) answer of a request. */
interface Waiter {
  resolve(text: string): void;
  reject(err: Error): void;
}

/** Something to write to the helper, in order: a piece of audio, or a request line. */
type Outgoing = { piece: Buffer; samples: number } | { line: string; waiter: Waiter | null };

/**
 * Pieces written to the helper and not yet decoded, at most: enough to keep it busy while the
 * acknowledgement of the oldest comes back, little enough that dropping an utterance (a turn
 * abandoned as too late, a cancelled one) costs at most this much decoding instead of a kill and
 * a model load. The rest of a backlog waits here, where it can be thrown away.
 */
const PIECES_IN_FLIGHT = 3;

/**
 * One long-lived python3-pocketsphinx process holding one warm decoder (model loaded once). It
 * decodes one utterance at a time: `begin()`, `write()` 16 kHz samples as they arrive (partial
 * hypotheses come back while the user speaks), then `end()` runs only the final pass.
 *
 * A process rather than an in-process addon: decoding runs on another core without blocking the
 * event loop, a crash takes down one decoder instead of the server, and nothing is compiled at
 * install time. The model loads once per process, and the final pass is short enough to run when the
 * user stops (docs/realtime.md, the speech recognizer).
 */
export class PocketsphinxHelper {
  private readonly child: DecoderProcess;
  private lines = '';
  /** Requests written, in the order their answers come. */
  private readonly finals: Waiter[] = [];
  private deadError: Error | null = null;
  readonly ready: Promise<void>;
  partial = '';
  /**
   * Milliseconds of speech the decoder heard after the partial's last word and made no word of
   * (the `U` line that comes with every `P`: its [SPEECH] fillers); undefined before the first.
   */
  unrecognizedSpeechMs: number | undefined = undefined;
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
  /** Samples of the utterance not yet cut into a piece (less than one), in `pending[0..pendingLength)`. */
  private pending = new Int16Array(DECODER_PIECE_SAMPLES);
  private pendingLength = 0;
  /** Not written yet (pieces beyond PIECES_IN_FLIGHT, and the requests behind them). */
  private readonly outbox: Outgoing[] = [];
  private queuedSamples = 0;
  /** Sizes of the pieces written and not yet answered (the helper answers each once decoded). */
  private readonly inFlight: number[] = [];
  private inFlightSamples = 0;
  /** Samples this decoder has decoded since it started (what recognition costs grows with it). */
  decodedSamples = 0;
  /** A failure the helper reported while nobody waited for an answer: the utterance's end hears it. */
  private failure: Error | null = null;

  /** `direct`: spawned from this process even when the process launcher is on (see startDecoderProcess). */
  constructor(python: string, script: string, decoderArgs: readonly string[], options: { direct?: boolean } = {}) {
    this.child = startDecoderProcess(python, script, decoderArgs, STDERR_TAIL_CHARS, options.direct);
    let markReady!: () => void;
    let failReady!: (err: Error) => void;
    this.ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failReady = reject;
    });
    this.ready.catch(() => undefined);
    const readyTimer = setTimeout(() => failReady(new Error('pocketsphinx helper did not load its model in time')), READY_TIMEOUT_MS);
    this.child.output.setEncoding('utf8').on('data', (text: string) => {
      this.lines += text;
      let nl: number;
      while ((nl = this.lines.indexOf('\n')) >= 0) {
        const line = this.lines.slice(0, nl);
        this.lines = this.lines.slice(nl + 1);
        if (line === 'R' || line.startsWith('R ')) {
          clearTimeout(readyTimer);
          this.normalizes = line === 'R';
          this.isLoaded = true;
          markReady();
        } else this.onLine(line);
      }
    });
    // A write to a helper that just died must not crash the server; the exit handler reports it.
    this.child.input.on('error', () => undefined);
    void this.child.exited.then(({ code, signal, stderr, spawnError }) => {
      clearTimeout(readyTimer);
      const err = spawnError
        ? new Error(`pocketsphinx helper could not start (${python}): ${spawnError.message}`)
        : new Error(`pocketsphinx helper exited (${signal ?? `code ${code}`}): ${stderr.trim() || 'no output on stderr'}`);
      failReady(err);
      this.die(err);
    });
  }

  get alive(): boolean {
    return this.deadError === null;
  }

  /** Its model is loaded: it decodes as soon as it is given audio. */
  get loaded(): boolean {
    return this.isLoaded && this.alive;
  }
  private isLoaded = false;

  /**
   * Starts an utterance from the given cepstral mean (what the same speaker's previous utterance
   * left, as `cepstralMean` reported it) or, with none, from the model's initial one. `fresh`: a
   * stream of its own (noise and channel estimates start over, word times count from 0).
   */
  begin(cepstralMean = '', fresh = false): void {
    this.partial = '';
    this.unrecognizedSpeechMs = undefined;
    this.cepstralMean = '';
    this.pendingLength = 0;
    this.failure = null;
    this.onSettled = null;
    this.enqueue({ line: `${fresh ? 'N' : 'S'}${cepstralMean ? ` ${cepstralMean}` : ''}\n`, waiter: null });
  }

  /**
   * A fresh stream (as `begin('', true)`) that also reports, while it decodes, the words that have
   * settled: those the decoder passed by a second or more, which its final pass rarely changes.
   */
  beginReportingSettled(onSettled: (text: string) => void): void {
    this.partial = '';
    this.unrecognizedSpeechMs = undefined;
    this.cepstralMean = '';
    this.pendingLength = 0;
    this.failure = null;
    this.onSettled = onSettled;
    this.enqueue({ line: 'L\n', waiter: null });
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
      this.queuePiece(this.pending);
      this.pendingLength = 0;
    }
    for (; samples.length - at >= DECODER_PIECE_SAMPLES; at += DECODER_PIECE_SAMPLES)
      this.queuePiece(samples.subarray(at, at + DECODER_PIECE_SAMPLES));
    this.pending.set(samples.subarray(at), 0);
    this.pendingLength = samples.length - at;
  }

  /** Milliseconds of audio given to the decoder and not decoded yet: how far behind real time it is. */
  get backlogMs(): number {
    return (this.inFlightSamples + this.queuedSamples + this.pendingLength) / SAMPLES_PER_MS;
  }

  /** Milliseconds of whole pieces given to the decoder and not decoded yet: what its partial hypothesis does not reflect. */
  get piecesBehindMs(): number {
    return (this.inFlightSamples + this.queuedSamples) / SAMPLES_PER_MS;
  }

  /** Process id of the decoder (its CPU time is read from /proc by the capacity probe). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Final pass of the utterance: its text. */
  end(): Promise<string> {
    this.flushPending();
    return this.request('E\n');
  }

  /**
   * Final pass with the time of every word (seconds from the start of an utterance begun `fresh`)
   * and how sure the decoder is of them (see the helper script's `Q` line).
   */
  async endWithWordTimes(): Promise<{
    text: string;
    words: { word: string; start: number; end: number }[];
    confidence: UtteranceConfidence;
  }> {
    this.flushPending();
    this.wordTimes = [];
    this.confidence = { avgLogprob: null, noSpeech: 1 };
    const text = await this.request('W\n');
    this.onSettled = null;
    return { text, words: this.wordTimes, confidence: this.confidence };
  }

  /**
   * Drops the utterance in progress; resolves once the decoder is free again. Audio not written
   * yet is thrown away with the requests queued behind it (their callers are told), so only the
   * pieces in flight are still decoded.
   */
  async drop(): Promise<void> {
    this.pendingLength = 0;
    this.queuedSamples = 0;
    const dropped = new Error('the utterance was dropped');
    for (const entry of this.outbox.splice(0)) if ('line' in entry) entry.waiter?.reject(dropped);
    await this.request('X\n');
  }

  kill(): void {
    this.die(new Error('pocketsphinx helper stopped'));
    this.child.kill();
  }

  /** The last partial piece, at the end of an utterance. */
  private flushPending(): void {
    if (this.pendingLength > 0) this.queuePiece(this.pending.subarray(0, this.pendingLength));
    this.pendingLength = 0;
  }

  private queuePiece(piece: Int16Array): void {
    if (this.deadError) return;
    // Header and samples in one write (one system call, one wake-up of the helper); a copy, since
    // the pending buffer is reused and the piece may wait in the outbox.
    const header = `A ${piece.byteLength}\n`;
    const message = Buffer.allocUnsafe(header.length + piece.byteLength);
    message.write(header, 0, 'latin1');
    message.set(new Uint8Array(piece.buffer, piece.byteOffset, piece.byteLength), header.length);
    this.queuedSamples += piece.length;
    this.enqueue({ piece: message, samples: piece.length });
  }

  private request(line: string): Promise<string> {
    if (this.deadError) return Promise.reject(this.deadError);
    if (this.failure && line !== 'X\n') {
      const failure = this.failure;
      this.failure = null;
      return Promise.reject(failure);
    }
    return new Promise((resolve, reject) => this.enqueue({ line, waiter: { resolve, reject } }));
  }

  private enqueue(entry: Outgoing): void {
    if (this.deadError) {
      if ('line' in entry) entry.waiter?.reject(this.deadError);
      return;
    }
    this.outbox.push(entry);
    this.pump();
  }

  /** Writes what may go now, in order: pieces while fewer than PIECES_IN_FLIGHT are being decoded. */
  private pump(): void {
    while (this.outbox.length > 0) {
      const head = this.outbox[0]!;
      if ('piece' in head) {
        if (this.inFlight.length >= PIECES_IN_FLIGHT) return;
        this.inFlight.push(head.samples);
        this.inFlightSamples += head.samples;
        this.queuedSamples -= head.samples;
        this.child.input.write(head.piece);
      } else {
        if (head.waiter) this.finals.push(head.waiter);
        this.child.input.write(head.line);
      }
      this.outbox.shift();
    }
  }

  private onLine(line: string): void {
    if (line === 'P' || line.startsWith('P ')) {
      const decoded = this.inFlight.shift() ?? 0;
      this.inFlightSamples -= decoded;
      this.decodedSamples += decoded;
      if (line.length > 1) this.partial = line.slice(2);
      this.pump();
    } else if (line.startsWith('U ')) {
      const ms = Number(line.slice(2));
      this.unrecognizedSpeechMs = Number.isFinite(ms) && ms >= 0 ? ms : undefined;
    } else if (line.startsWith('T ')) this.wordTimes = parseWordTimes(line.slice(2));
    else if (line.startsWith('K ')) this.onSettled?.(line.slice(2));
    else if (line.startsWith('Q ')) this.confidence = parseConfidence(line.slice(2));
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
    this.inFlight.length = 0;
    this.inFlightSamples = 0;
    this.queuedSamples = 0;
    this.pendingLength = 0;
    for (const entry of this.outbox.splice(0)) if ('line' in entry) entry.waiter?.reject(err);
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
  return {
    avgLogprob: Number.isFinite(avg) ? Math.min(0, avg) : null,
    noSpeech: Number.isFinite(share) ? Math.min(1, Math.max(0, share)) : 1,
  };
}

/** `word start end word start end ...` -> word times. */
function parseWordTimes(text: string): { word: string; start: number; end: number }[] {
  const parts = text.trim().split(/\s+/).filter(Boolean);
  const words: { word: string; start: number; end: number }[] = [];
  for (let i = 0; i + 2 < parts.length; i += 3) words.push({ word: parts[i]!, start: Number(parts[i + 1]), end: Number(parts[i + 2]) });
  return words;
}
