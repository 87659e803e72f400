import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PcmAudio, Principal, SpeechRecognizer } from '@svc/core';
import { throwIfAborted } from '../speech/abort.js';
import { SpeexResampler } from '../speech/speex-resampler.js';
import { ConcurrencyLimiter } from './concurrency-limiter.js';
import { assertPocketsphinxInstalled, POCKETSPHINX_BINARY, POCKETSPHINX_EN_US_MODEL } from './pocketsphinx-installation.js';
import { recognizerWav } from './recognizer-input.js';
import { runPocketsphinx } from './run-pocketsphinx.js';

export interface PocketsphinxSpeechRecognizerOptions {
  /** Defaults to Debian's /usr/bin/pocketsphinx_continuous. */
  binary?: string;
  /**
   * Recognizer processes running at once; further turns wait their turn. Each process loads the
   * model (~0.4 s) and decodes on one core, so a burst of turns cannot fork without bound.
   */
  maxConcurrent?: number;
  /** Extra command-line arguments (e.g. `-hmm`, `-lm`, `-dict` for another model). */
  extraArgs?: readonly string[];
  /** Where each utterance's directory (`svc-asr-*`) is made; the system temp directory by default. */
  scratchDir?: string;
}

const DEFAULT_MAX_CONCURRENT = 2;

/**
 * Offline English speech recognition with CMU pocketsphinx (Debian's pocketsphinx + pocketsphinx-en-us).
 * One process per utterance, reading a temporary WAV file. (It cannot read stdin here: Node's child
 * stdio are socketpairs and pocketsphinx opens `-infile /dev/stdin` by path, which fails with ENXIO.)
 *
 * Limits: only the US English model exists, so a `language` hint other than English is ignored and
 * the audio is still decoded as English (expect nonsense words for other languages). Accuracy is that
 * of a classical recognizer: good on clear, short commands, 35 % word error rate on five LibriVox
 * audiobook sentences (21-75 % per sentence). Each call costs ~0.45 s of model load plus decoding
 * (~2 s for a 3-7 s sentence here). A neural recognizer plugs in behind the same port where an
 * operator has one.
 */
export class PocketsphinxSpeechRecognizer implements SpeechRecognizer {
  private readonly limiter: ConcurrencyLimiter;

  private constructor(
    private readonly binary: string,
    private readonly extraArgs: readonly string[],
    private readonly resampler: SpeexResampler,
    maxConcurrent: number,
    private readonly scratchDir: string,
  ) {
    this.limiter = new ConcurrencyLimiter(maxConcurrent);
  }

  /** Throws, saying to run `npm run setup`, when the binary or its English model is not installed. */
  static async create(options: PocketsphinxSpeechRecognizerOptions = {}): Promise<PocketsphinxSpeechRecognizer> {
    const binary = options.binary ?? POCKETSPHINX_BINARY;
    const extraArgs = options.extraArgs ?? [];
    // With an explicit -hmm the default model is not needed.
    await assertPocketsphinxInstalled(binary, extraArgs.includes('-hmm') ? null : POCKETSPHINX_EN_US_MODEL);
    return new PocketsphinxSpeechRecognizer(
      binary,
      extraArgs,
      await SpeexResampler.create(),
      options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT,
      options.scratchDir ?? tmpdir(),
    );
  }

  /** Recognizer processes running and turns waiting for one. */
  get load(): { running: number; waiting: number } {
    return this.limiter.load;
  }

  async transcribe(
    audio: PcmAudio,
    // The language hint cannot be honoured (English model only); the principal is not needed.
    _options: { language: string | null; principal: Principal },
    signal?: AbortSignal,
  ): Promise<{ text: string }> {
    throwIfAborted(signal);
    if (audio.samples.length === 0) return { text: '' };
    return this.limiter.run(() => this.recognize(audio, signal), signal);
  }

  private async recognize(audio: PcmAudio, signal: AbortSignal | undefined): Promise<{ text: string }> {
    const wav = recognizerWav(audio, this.resampler);
    // A private directory (mode 0700): other local users cannot read the user's speech.
    const dir = await mkdtemp(join(this.scratchDir, 'svc-asr-'));
    try {
      // The .wav suffix makes pocketsphinx check the header's rate instead of reading it as raw samples.
      const path = join(dir, 'utterance.wav');
      await writeFile(path, wav);
      const text = await runPocketsphinx(this.binary, path, this.extraArgs, signal);
      return { text: text.trim().toLowerCase() };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
