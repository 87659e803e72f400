import { constants } from 'node:fs';
import { availableParallelism } from 'node:os';
import { access } from 'node:fs/promises';
import type {
  DetailedTranscript,
  PcmAudio,
  RecognitionOptions,
  RecognitionStream,
  SpeechRecognizer,
  TranscriptionOptions,
} from '@svc/core';
import { compressionRatio } from './compression-ratio.js';
import { throwIfAborted } from '@svc/adapters-runtime';
import { DecoderPool, type DecoderPoolStats, type DecoderWait } from './decoder-pool.js';
import { DEBIAN_PYTHON, PocketsphinxHelper, POCKETSPHINX_HELPER_SCRIPT } from './pocketsphinx-helper.js';
import { POCKETSPHINX_EN_US_MODEL, POCKETSPHINX_EN_US_MODEL_DIR } from './pocketsphinx-installation.js';
import { PocketsphinxRecognitionStream, type SpeakerMean } from './pocketsphinx-recognition-stream.js';
import { floatToInt16, RECOGNIZER_SAMPLE_RATE } from './recognizer-input.js';
import { StreamingResampler } from '@svc/adapters-runtime';

export interface PocketsphinxSpeechRecognizerOptions {
  /** Most decoders shared by all sessions, i.e. turns recognized at once (one process each, forked with the model loaded). */
  decoders?: number;
  /**
   * Decoders loaded at start (the pool grows on demand up to `decoders`). 0: none held until the
   * first turn; the first create() of a process with these settings still loads one to prove the
   * installation works, then stops it (later ones in the same process trust that proof).
   */
  warmDecoders?: number;
  /** Defaults to Debian's /usr/bin/python3 (python3-pocketsphinx lives in its dist-packages). */
  python?: string;
  /** Decoder options as pairs (e.g. `-hmm`, `-lm`, `-dict` for another model), after ours. */
  extraArgs?: readonly string[];
  /** Called when a turn had to wait for a free decoder. */
  onDecoderWait?: (wait: DecoderWait) => void;
  /**
   * How long a decoder beyond the warm ones (and those reserved or in use) may stay unused before it
   * is stopped (default 60 s; a new one is forked in a few ms when needed again).
   */
  idleDecoderStopMs?: number;
}

const DEFAULT_IDLE_DECODER_STOP_MS = 60_000;

const DEFAULT_DECODERS = 16;

/**
 * The installations (python and decoder settings) a decoder has loaded with in this process, and
 * whether its decoders could set their cepstral mean. A process that starts several servers (the
 * tests start hundreds) proves each installation once instead of loading a model at every start.
 */
const provenInstallations = new Map<string, { normalizes: boolean }>();
const DEFAULT_WARM_DECODERS = 2;

/**
 * Decoder settings (their measurements: docs/realtime.md, "Decoder settings"). Only the first (tree)
 * search runs: the flat-lexicon and lattice passes would make the final pass several times longer
 * after the user stops, and on the LibriVox clips they made the word error rate worse. At most 3000
 * active HMMs per frame: the same WER on those clips at little more than half the CPU, where lower
 * caps lost accuracy; that saving is what lets more conversations share the cores.
 *
 * Narrower word-level pruning on top was tried and NOT kept: `-maxhmmpf 2500 -maxwpf 10 -wbeam 1e-25`
 * cut decoder CPU by about a fifth at the same WER on the clips, but it made the Opus-encoded
 * LibriVox turn of realtime-live-voice.test.ts fail its WER bound ("paddy married a more can be a
 * bull wall..."), and the "Mm-hmm" backchannel turned into four words. Accuracy first.
 */
export const POCKETSPHINX_DECODER_ARGS = [
  '-hmm',
  POCKETSPHINX_EN_US_MODEL,
  '-lm',
  `${POCKETSPHINX_EN_US_MODEL_DIR}/en-us.lm.bin`,
  '-dict',
  `${POCKETSPHINX_EN_US_MODEL_DIR}/cmudict-en-us.dict`,
  '-fwdflat',
  'no',
  '-bestpath',
  'no',
  '-maxhmmpf',
  '3000',
] as const;

/**
 * Offline English speech recognition with CMU pocketsphinx (Debian: python3-pocketsphinx +
 * pocketsphinx-en-us), warm and streaming: a pool of long-lived decoder processes loaded once at
 * start, shared by all sessions; a turn is decoded while the user speaks, so when they stop only
 * the short final pass remains. Manual commits use the same decoders in one go.
 *
 * Limits: only the US English model exists, so a `language` hint other than English is ignored
 * (expect nonsense words for other languages). Accuracy is that of a classical recognizer: good on
 * clear short commands, poor on audiobook speech (docs/benchmarks.md, Speech to text). A neural
 * recognizer plugs in behind the same port where an operator has one.
 */
export class PocketsphinxSpeechRecognizer implements SpeechRecognizer {
  /**
   * Each session's speaker normalization between its turns, keyed on the session's `speaker`
   * object (gone with the session). Turns without one start from the model's initial mean.
   */
  private readonly speakers = new WeakMap<object, SpeakerMean>();

  /**
   * Whether each caller starts from their own speaker normalization (the helper could set the
   * decoder's cepstral mean on this sphinxbase build); false: it carries from one turn to the next
   * across callers, as plain pocketsphinx does. Read from the decoders loaded at start (or at this
   * process's first start with the same settings).
   */
  readonly speakerNormalization: boolean;

  private constructor(
    private readonly pool: DecoderPool,
    speakerNormalization: boolean,
  ) {
    this.speakerNormalization = speakerNormalization;
  }

  /** Throws, saying to run the system setup, when python3-pocketsphinx or the model is missing. */
  static async create(options: PocketsphinxSpeechRecognizerOptions = {}): Promise<PocketsphinxSpeechRecognizer> {
    const python = options.python ?? DEBIAN_PYTHON;
    const args = [...POCKETSPHINX_DECODER_ARGS, ...(options.extraArgs ?? [])];
    await assertReadable(python, 'python3 (Debian package python3)');
    await assertReadable(`${POCKETSPHINX_EN_US_MODEL}/mdef`, 'the pocketsphinx English model (Debian package pocketsphinx-en-us)');
    const spawn = () => new PocketsphinxHelper(python, POCKETSPHINX_HELPER_SCRIPT, args);
    const max = options.decoders ?? DEFAULT_DECODERS;
    const warm = Math.min(max, options.warmDecoders ?? DEFAULT_WARM_DECODERS);
    // Warm decoders are forked from the fork server, started now with its model. A decoder loaded
    // only to prove the installation is spawned directly, so that nothing stays loaded at idle.
    const spawnAtStart = warm > 0 ? spawn : () => new PocketsphinxHelper(python, POCKETSPHINX_HELPER_SCRIPT, args, { direct: true });
    const installation = [python, ...args].join('\0');
    const proven = provenInstallations.get(installation);
    const helpers: PocketsphinxHelper[] = [];
    try {
      // A few at a time, one per core: sixteen models loading at once on a busy machine each take
      // long enough to miss the helper's load deadline; in batches each loads as fast as when alone.
      const load = Math.max(warm, proven === undefined ? 1 : 0);
      while (helpers.length < load) {
        const batch = Array.from({ length: Math.min(availableParallelism(), load - helpers.length) }, spawnAtStart);
        helpers.push(...batch);
        await Promise.all(batch.map((h) => h.ready));
      }
    } catch (err) {
      for (const h of helpers) h.kill();
      throw new Error(
        `pocketsphinx could not start: ${(err as Error).message}. Run \`npm run setup\` (scripts/setup-system.sh installs python3-pocketsphinx and pocketsphinx-en-us).`,
      );
    }
    const normalizes = helpers.length > 0 ? helpers.every((h) => h.normalizes) : proven!.normalizes;
    provenInstallations.set(installation, { normalizes });
    // Loaded only as the proof: the pool holds no decoder until the first turn.
    for (const helper of helpers.splice(warm)) helper.kill();
    return new PocketsphinxSpeechRecognizer(
      new DecoderPool(
        helpers,
        spawn,
        max,
        options.onDecoderWait,
        availableParallelism(),
        options.idleDecoderStopMs ?? DEFAULT_IDLE_DECODER_STOP_MS,
      ),
      normalizes,
    );
  }

  /** Decoders in use, turns waiting for one, and how long turns have waited. */
  get load(): DecoderPoolStats {
    return this.pool.load;
  }

  /** A session that will stream turns: a decoder loads for it now, if the pool has none to spare. */
  reserve(): () => void {
    return this.pool.reserve();
  }

  openStream(options: RecognitionOptions & { sampleRate: number }, signal: AbortSignal): RecognitionStream {
    // The language hint cannot be honoured (English model only); the principal is not needed.
    return new PocketsphinxRecognitionStream(this.pool, options.sampleRate, signal, this.speakerMean(options.speaker));
  }

  async transcribe(audio: PcmAudio, options: RecognitionOptions, signal?: AbortSignal): Promise<{ text: string }> {
    throwIfAborted(signal);
    if (audio.samples.length === 0) return { text: '' };
    const stream = this.openStream({ ...options, sampleRate: audio.sampleRate }, signal ?? new AbortController().signal);
    stream.write(audio.samples);
    return stream.finish();
  }

  /**
   * A whole recording (the transcription endpoint) in one pass on a pooled decoder, begun as a new
   * stream (so frame numbers, hence word times, count from its start), with the time of each word
   * from the decoder's segmentation. English only: the language hint is not used. With
   * `options.onText` the words are reported as they settle while the decoder works through the
   * recording. The one segment carries the decoder's confidence (see the helper's `Q` line):
   * `avgLogprob` the mean log lattice posterior of its words, `noSpeechProb` the share of the
   * recording its voice activity detector did not call speech, `temperature` 0 (no sampling).
   */
  async transcribeDetailed(audio: PcmAudio, options: TranscriptionOptions, signal?: AbortSignal): Promise<DetailedTranscript> {
    throwIfAborted(signal);
    const samples =
      audio.sampleRate === RECOGNIZER_SAMPLE_RATE
        ? audio.samples
        : floatToInt16(new StreamingResampler(audio.sampleRate, RECOGNIZER_SAMPLE_RATE).process(audio.samples));
    const duration = samples.length / RECOGNIZER_SAMPLE_RATE;
    const onText = options.onText;
    const { text, words, confidence } = await this.pool.use(signal, async (helper) => {
      // A caller that leaves mid-decode (a long recording) frees the decoder: killed, the pool starts another.
      const onAbort = (): void => helper.kill();
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        if (onText) helper.beginReportingSettled(settledTextDeltas(onText));
        else helper.begin('', true);
        helper.write(samples);
        return await helper.endWithWordTimes();
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    });
    const clean = text.trim().toLowerCase();
    const segment = {
      start: 0,
      end: duration,
      text: clean,
      ...(confidence.avgLogprob !== null ? { avgLogprob: confidence.avgLogprob } : {}),
      compressionRatio: compressionRatio(clean),
      noSpeechProb: confidence.noSpeech,
      temperature: 0,
    };
    return {
      text: clean,
      language: 'en',
      duration,
      segments: clean ? [segment] : [],
      words: words.map((w) => ({ ...w, word: w.word.toLowerCase() })),
    };
  }

  private speakerMean(speaker: object | undefined): SpeakerMean {
    if (!speaker) return { mean: '' };
    let mean = this.speakers.get(speaker);
    if (!mean) this.speakers.set(speaker, (mean = { mean: '' }));
    return mean;
  }

  /** Stops every decoder process (server shutdown). */
  close(): void {
    this.pool.close();
  }
}

/**
 * Settled words (each report the whole settled text so far) -> the text added since the last
 * report, so the pieces joined are the start of the transcript. A report that no longer starts
 * with what was sent (the decoder changed its mind about a settled word) sends nothing until one
 * does again.
 */
function settledTextDeltas(onText: (delta: string) => void): (settled: string) => void {
  let sent = '';
  return (settled) => {
    const text = settled.trim().toLowerCase();
    if (text.length <= sent.length || (sent !== '' && !text.startsWith(`${sent} `))) return;
    onText(text.slice(sent.length));
    sent = text;
  };
}

async function assertReadable(path: string, what: string): Promise<void> {
  try {
    await access(path, constants.R_OK);
  } catch {
    throw new Error(`${what} is not installed (${path} is missing): run \`npm run setup\` (scripts/setup-system.sh).`);
  }
}
