import type { InferenceSession } from 'onnxruntime-node';
import { Tensor } from 'onnxruntime-node';
import pLimit from 'p-limit';
import type { PcmAudio, RecognitionOptions, RecognitionStream, SpeechRecognizer } from '@svc/core';
import { throwIfAborted } from '../../speech/abort.js';
import { loadVoiceModelSession } from '../../speech/models/onnx-session.js';
import { StreamingResampler } from '../../vad/streaming-resampler.js';
import { MoonshineFamily } from '../moonshine/moonshine-family.js';
import { RECOGNIZER_SAMPLE_RATE } from '../recognizer-input.js';
import { WhisperFamily } from '../whisper/whisper-family.js';
import { GreedyDecoder, type DecoderSessions } from './greedy-decoder.js';
import { BufferedRecognitionStream } from './buffered-recognition-stream.js';
import type { Seq2SeqFamilyRunner } from './seq2seq-family.js';
import type { DetailedTranscript, TranscriptSegment } from './transcript.js';
import { readTransformersAsrModel, type TransformersAsrModel } from './transformers-model-folder.js';

export interface TransformersSpeechRecognizerOptions {
  /** The model folder (transformers.js ONNX layout). */
  dir: string;
  /** Name shown in logs, /readyz and the `model` of transcriptions (default: the folder's name). */
  name?: string;
  /** onnxruntime intra-op threads per session (SVC_ONNX_THREADS). */
  threads?: number;
}

/**
 * Whisper or Moonshine from a transformers.js ONNX export, on onnxruntime-node (nothing is fetched:
 * the files are read from the folder). Neither model streams, so a realtime turn is buffered while
 * the user speaks and decoded once at its end. Sessions are created once; turns are decoded one at
 * a time (each already uses the configured intra-op threads), in arrival order.
 */
export class TransformersSpeechRecognizer implements SpeechRecognizer {
  private readonly queue = pLimit(1);

  private constructor(
    readonly name: string,
    readonly engine: 'whisper' | 'moonshine',
    private readonly family: Seq2SeqFamilyRunner,
    private readonly encoder: InferenceSession,
    private readonly decoder: GreedyDecoder,
    private readonly sessions: InferenceSession[],
    readonly model: TransformersAsrModel,
  ) {}

  /** Reads the folder and loads its sessions; a missing or incomplete model throws naming the path. */
  static async create(options: TransformersSpeechRecognizerOptions): Promise<TransformersSpeechRecognizer> {
    const model = await readTransformersAsrModel(options.dir);
    const threads = options.threads ?? 1;
    const load = async (path: string) => {
      try {
        return await loadVoiceModelSession(path, threads);
      } catch (error) {
        throw new Error(`${path}: onnxruntime cannot load it (${(error as Error).message.split('\n')[0]})`);
      }
    };
    const encoder = await load(model.encoderPath);
    const sessions: DecoderSessions = 'merged' in model.decoder ? { merged: await load(model.decoder.merged) } : { first: await load(model.decoder.first), withPast: await load(model.decoder.withPast) };
    const family = model.family === 'whisper' ? new WhisperFamily(model) : new MoonshineFamily(model);
    const wanted = model.family === 'whisper' ? 'input_features' : 'input_values';
    if (!encoder.inputNames.includes(wanted)) throw new Error(`${model.encoderPath}: the encoder has no ${wanted} input (inputs: ${encoder.inputNames.join(', ')})`);
    const decoder = new GreedyDecoder(sessions, kvShapeOf(model.config));
    const name = options.name ?? model.dir.split('/').filter(Boolean).pop()!;
    return new TransformersSpeechRecognizer(name, model.family, family, encoder, decoder, [encoder, ...Object.values(sessions)], model);
  }

  get languages(): string[] {
    return this.family.languages;
  }

  openStream(options: RecognitionOptions & { sampleRate: number }, signal: AbortSignal): RecognitionStream {
    return new BufferedRecognitionStream(options.sampleRate, signal, (samples16k) => this.recognize16k(samples16k, options.language, signal).then((t) => ({ text: t.text })));
  }

  async transcribe(audio: PcmAudio, options: RecognitionOptions, signal?: AbortSignal): Promise<{ text: string }> {
    const result = await this.transcribeDetailed(audio, options, signal);
    return { text: result.text };
  }

  /** Text, language and one segment per 30 s window (neither model gives word times without alignment heads). */
  async transcribeDetailed(audio: PcmAudio, options: RecognitionOptions, signal?: AbortSignal): Promise<DetailedTranscript> {
    throwIfAborted(signal);
    const resampler = new StreamingResampler(audio.sampleRate, RECOGNIZER_SAMPLE_RATE);
    return this.recognize16k(Float32Array.from(resampler.process(audio.samples)), options.language, signal);
  }

  private recognize16k(samples: Float32Array, language: string | null, signal: AbortSignal | undefined): Promise<DetailedTranscript> {
    return this.queue(async () => {
      const segments: TranscriptSegment[] = [];
      let detected: string | null = null;
      const window = this.family.windowSamples;
      for (let start = 0; start < samples.length; start += window) {
        throwIfAborted(signal);
        const chunk = samples.subarray(start, Math.min(samples.length, start + window));
        const seconds = chunk.length / RECOGNIZER_SAMPLE_RATE;
        const encoded = await this.encoder.run(this.encoderFeeds(chunk));
        const hidden = encoded.last_hidden_state as Tensor | undefined;
        if (!hidden) throw new Error(`${this.model.encoderPath}: the encoder returned no last_hidden_state`);
        const { plan, language: used } = await this.family.plan(this.decoder, hidden, language ?? detected, seconds);
        detected ??= used;
        const text = this.model.tokens.decode(await this.decoder.generate(hidden, plan, signal)).trim();
        const offset = start / RECOGNIZER_SAMPLE_RATE;
        if (text) segments.push({ start: offset, end: offset + seconds, text });
      }
      return { text: segments.map((s) => s.text).join(' '), language: detected, duration: samples.length / RECOGNIZER_SAMPLE_RATE, segments };
    });
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
    this.queue.clearQueue();
    await Promise.all(this.sessions.map((s) => s.release()));
  }
}

/** Cached key/value heads and head size from config.json (Whisper and Moonshine name them differently). */
function kvShapeOf(config: Record<string, unknown>): { heads: number; headDim: number } {
  const n = (...keys: string[]) => keys.map((k) => config[k]).find((v): v is number => typeof v === 'number');
  const heads = n('decoder_attention_heads', 'decoder_num_attention_heads', 'num_attention_heads') ?? 1;
  const kvHeads = n('decoder_num_key_value_heads', 'num_key_value_heads') ?? heads;
  const width = n('d_model', 'hidden_size') ?? heads;
  return { heads: kvHeads, headDim: n('head_dim') ?? Math.floor(width / heads) };
}
