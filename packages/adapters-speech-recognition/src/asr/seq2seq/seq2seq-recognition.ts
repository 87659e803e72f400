import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { throwIfAborted } from '@svc/adapters-runtime';
import { loadVoiceModelSession } from '@svc/adapters-runtime';
import { MoonshineFamily } from '../moonshine/moonshine-family.js';
import { RECOGNIZER_SAMPLE_RATE } from '../recognizer-input.js';
import { WhisperFamily } from '../whisper/whisper-family.js';
import { compressionRatio } from '../compression-ratio.js';
import { decodeWithFallback, isSilence, seededRandom, type WindowDecode } from './decode-fallback.js';
import { GreedyDecoder, type DecoderSessions, type GenerationPlan, type Sampling } from './greedy-decoder.js';
import type { Seq2SeqFamilyRunner } from './seq2seq-family.js';
import type { DetailedTranscript, TranscriptSegment } from './transcript.js';
import { readTransformersAsrModel, type TransformersAsrModel } from './transformers-model-folder.js';

/** What one recognition needs besides the audio. */
export interface Seq2SeqRequest {
  language: string | null;
  /** Whisper only: text of earlier context, fed as <|startofprev|> tokens (ignored by Moonshine). */
  prompt?: string;
}

/**
 * One Whisper or Moonshine model loaded into onnxruntime sessions (created once) and the whole
 * recognition of 16 kHz audio: features, encoder, language choice and decoding per 30 s window
 * (greedy, with Whisper's temperature fallback), each segment with avg_logprob, compression_ratio,
 * no_speech_prob (Whisper) and the temperature it was decoded at. It runs inside the model's worker thread (transformers-asr-worker.ts), never on the
 * main event loop.
 */
export class Seq2SeqRecognition {
  private constructor(
    readonly model: TransformersAsrModel,
    private readonly family: Seq2SeqFamilyRunner,
    private readonly encoder: InferenceSession,
    private readonly decoder: GreedyDecoder,
    private readonly sessions: InferenceSession[],
  ) {}

  /** Reads the folder and loads its sessions; a missing or incomplete model throws naming the path. */
  static async load(dir: string, threads: number): Promise<Seq2SeqRecognition> {
    const model = await readTransformersAsrModel(dir);
    const load = async (path: string) => {
      try {
        return await loadVoiceModelSession(path, threads);
      } catch (error) {
        throw new Error(`${path}: onnxruntime cannot load it (${(error as Error).message.split('\n')[0]})`);
      }
    };
    const encoder = await load(model.encoderPath);
    const sessions: DecoderSessions =
      'merged' in model.decoder
        ? { merged: await load(model.decoder.merged) }
        : { first: await load(model.decoder.first), withPast: await load(model.decoder.withPast) };
    const family = model.family === 'whisper' ? new WhisperFamily(model) : new MoonshineFamily(model);
    const wanted = model.family === 'whisper' ? 'input_features' : 'input_values';
    if (!encoder.inputNames.includes(wanted))
      throw new Error(`${model.encoderPath}: the encoder has no ${wanted} input (inputs: ${encoder.inputNames.join(', ')})`);
    const decoder = new GreedyDecoder(sessions, kvShapeOf(model.config));
    return new Seq2SeqRecognition(model, family, encoder, decoder, [encoder, ...Object.values(sessions)]);
  }

  get languages(): string[] {
    return this.family.languages;
  }

  async recognize(samples: Float32Array, request: Seq2SeqRequest, signal: AbortSignal | undefined): Promise<DetailedTranscript> {
    const segments: TranscriptSegment[] = [];
    let detected: string | null = null;
    for (const { start, end } of recognitionWindows(samples.length, this.family.windowSamples, this.family.minWindowSamples)) {
      throwIfAborted(signal);
      const seconds = (end - start) / RECOGNIZER_SAMPLE_RATE;
      const encoded = await this.encoder.run(this.encoderFeeds(samples.subarray(start, end)));
      const hidden = encoded.last_hidden_state as Tensor | undefined;
      if (!hidden) throw new Error(`${this.model.encoderPath}: the encoder returned no last_hidden_state`);
      const { plan, language: used } = await this.family.plan(this.decoder, hidden, request.language ?? detected, seconds, request.prompt);
      detected ??= used;
      const random = seededRandom(start + 1);
      const decoded = await decodeWithFallback(
        (temperature) => this.decode(hidden, plan, signal, { temperature, random }),
        this.family.temperatures,
      );
      if (!decoded.text || isSilence(decoded)) continue;
      const { text, ...figures } = decoded;
      segments.push({ start: start / RECOGNIZER_SAMPLE_RATE, end: end / RECOGNIZER_SAMPLE_RATE, text, ...figures });
    }
    return { text: segments.map((s) => s.text).join(' '), language: detected, duration: samples.length / RECOGNIZER_SAMPLE_RATE, segments };
  }

  /** One decode of a window and Whisper's figures for it. */
  private async decode(hidden: Tensor, plan: GenerationPlan, signal: AbortSignal | undefined, sampling: Sampling): Promise<WindowDecode> {
    const generation = await this.decoder.generate(hidden, plan, signal, sampling);
    const text = this.model.tokens.decode(generation.tokens).trim();
    return {
      text,
      avgLogprob: generation.sumLogprob / (generation.tokens.length + 1),
      compressionRatio: compressionRatio(text),
      ...(generation.noSpeechProb === undefined ? {} : { noSpeechProb: generation.noSpeechProb }),
      temperature: sampling.temperature,
    };
  }

  private encoderFeeds(chunk: Float32Array): Record<string, Tensor> {
    const offered = this.family.encoderFeeds(chunk);
    const feeds: Record<string, Tensor> = {};
    for (const name of this.encoder.inputNames) {
      if (!offered[name]) throw new Error(`${this.model.encoderPath}: unexpected encoder input ${name}`);
      feeds[name] = offered[name]!;
    }
    return feeds;
  }

  async close(): Promise<void> {
    await Promise.all(this.sessions.map((s) => s.release()));
  }
}

/**
 * The windows one recognition decodes: `window` samples each; a last window shorter than the
 * encoder takes joins the window before it (only families whose encoder takes any length set a
 * minimum), and an input shorter than that alone gives no window (56 ms cannot hold a word).
 */
export function recognitionWindows(length: number, window: number, min: number): { start: number; end: number }[] {
  const windows: { start: number; end: number }[] = [];
  for (let start = 0; start < length; start += window) windows.push({ start, end: Math.min(length, start + window) });
  const last = windows[windows.length - 1];
  if (last && last.end - last.start < min) {
    windows.pop();
    if (windows.length > 0) windows[windows.length - 1]!.end = length;
  }
  return windows;
}

/** Cached key/value heads and head size from config.json (Whisper and Moonshine name them differently). */
function kvShapeOf(config: Record<string, unknown>): { heads: number; headDim: number } {
  const n = (...keys: string[]) => keys.map((k) => config[k]).find((v): v is number => typeof v === 'number');
  const heads = n('decoder_attention_heads', 'decoder_num_attention_heads', 'num_attention_heads') ?? 1;
  const kvHeads = n('decoder_num_key_value_heads', 'num_key_value_heads') ?? heads;
  const width = n('d_model', 'hidden_size') ?? heads;
  return { heads: kvHeads, headDim: n('head_dim') ?? Math.floor(width / heads) };
}
