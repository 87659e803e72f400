import { Tensor, type InferenceSession } from 'onnxruntime-node';
import { throwIfAborted } from '@svc/adapters-runtime';

/** What to generate: the forced prefix and the rules applied to every step's logits. */
export interface GenerationPlan {
  /** Forced tokens the decoder starts from (e.g. <|startoftranscript|> <|en|> <|transcribe|> <|notimestamps|>). */
  prompt: number[];
  eos: number;
  /** Most tokens in the whole sequence, prompt included. */
  maxLength: number;
  /** Never chosen. */
  suppress: ReadonlySet<number>;
  /** Every id from this one up is never chosen (Whisper: the special tokens after EOS). */
  suppressFrom?: number;
  /** Not chosen as the first generated token (Whisper: the blank and EOS). */
  beginSuppress: ReadonlySet<number>;
  /**
   * Whisper's no-speech probability: the softmax of the logits at `position` of the prompt (its
   * <|startoftranscript|>) in the first pass, before any filter, at `token` (<|nospeech|>).
   */
  noSpeech?: { token: number; position: number };
}

/** What one decoding produced, with the figures Whisper judges a decode by. */
export interface Generation {
  /** The generated tokens after the prompt, EOS not included. */
  tokens: number[];
  /**
   * Sum of the log-probabilities of the chosen tokens, EOS included (log-softmax of the filtered
   * logits, at temperature 1 whatever the sampling temperature, as openai/whisper sums them).
   */
  sumLogprob: number;
  /** Set when the plan asks for it. */
  noSpeechProb?: number;
}

/** Sampling: temperature 0 is greedy (argmax); above it a token is drawn from softmax(logits / temperature). */
export interface Sampling {
  temperature: number;
  /** Uniform numbers in [0, 1) (a seeded generator, so a transcript can be reproduced). */
  random: () => number;
}

/** The decoder graphs of a transformers.js export: merged (use_cache_branch) or the two-graph pair. */
export type DecoderSessions = { merged: InferenceSession } | { first: InferenceSession; withPast: InferenceSession };

export interface KvShape {
  /** Attention heads of the cached keys/values (key-value heads where the model groups them). */
  heads: number;
  headDim: number;
}

const PAST = /^past_key_values\.(\d+)\.decoder\.key$/;

/**
 * Greedy autoregressive decoding with the key/value cache, on the decoder signature the
 * transformers.js ONNX exports share (Whisper, Moonshine): inputs `input_ids` int64 [1, S],
 * `encoder_hidden_states` float32 [1, T, D], `past_key_values.N.{decoder,encoder}.{key,value}`
 * float32 [1, heads, past, headDim] and, in the merged graph, `use_cache_branch` bool [1]; outputs
 * `logits` [1, S, vocab] and `present.N.*`. The first step feeds the whole prompt with empty caches
 * (use_cache_branch false); each later step feeds only the last token with the decoder cache the
 * step before returned and the encoder (cross-attention) cache of the first step. Only the inputs
 * a graph declares are fed, so small variations between exports load too.
 */
export class GreedyDecoder {
  private readonly layers: number;

  constructor(
    private readonly sessions: DecoderSessions,
    private readonly kv: KvShape,
  ) {
    const cached = 'merged' in sessions ? sessions.merged : sessions.withPast;
    this.layers = cached.inputNames.filter((n) => PAST.test(n)).length;
    if (this.layers === 0)
      throw new Error('the decoder has no past_key_values.N.decoder.key inputs (not a transformers.js decoder with cache)');
    const meta = cached.inputMetadata.find((m) => m.name === 'past_key_values.0.decoder.key');
    // Take heads and head size from the graph where its dims are fixed; the config is the fallback.
    if (meta?.isTensor) {
      const [, heads, , headDim] = meta.shape;
      if (typeof heads === 'number' && heads > 0) this.kv = { ...this.kv, heads };
      if (typeof headDim === 'number' && headDim > 0) this.kv = { ...this.kv, headDim };
    }
  }

  /** Scores of the vocabulary after `tokens` (one uncached pass): what the model would say next. */
  async nextLogits(encoderHidden: Tensor, tokens: number[]): Promise<Float32Array> {
    const session = 'merged' in this.sessions ? this.sessions.merged : this.sessions.first;
    const out = await session.run(this.feeds(session, tokens, encoderHidden, null));
    return lastRow(out.logits!);
  }

  /** Decodes after the prompt until EOS or max length: greedy, or sampled at a temperature. */
  async generate(encoderHidden: Tensor, plan: GenerationPlan, signal?: AbortSignal, sampling: Sampling = GREEDY): Promise<Generation> {
    const generated: number[] = [];
    let sumLogprob = 0;
    let noSpeechProb: number | undefined;
    let cache: Record<string, Tensor> | null = null;
    let step = plan.prompt;
    while (plan.prompt.length + generated.length < plan.maxLength) {
      throwIfAborted(signal);
      const session = 'merged' in this.sessions ? this.sessions.merged : cache ? this.sessions.withPast : this.sessions.first;
      const out = await session.run(this.feeds(session, step, encoderHidden, cache));
      if (!cache && plan.noSpeech) noSpeechProb = softmaxAt(row(out.logits!, plan.noSpeech.position), plan.noSpeech.token);
      const logits = lastRow(out.logits!);
      for (const id of plan.suppress) if (id < logits.length) logits[id] = -Infinity;
      if (plan.suppressFrom !== undefined) logits.fill(-Infinity, plan.suppressFrom);
      if (generated.length === 0) for (const id of plan.beginSuppress) if (id < logits.length) logits[id] = -Infinity;
      const next = sampling.temperature > 0 ? sample(logits, sampling) : argmax(logits);
      sumLogprob += logSoftmaxAt(logits, next);
      if (next === plan.eos) break;
      generated.push(next);
      cache = this.nextCache(out, cache);
      step = [next];
    }
    return { tokens: generated, sumLogprob, ...(noSpeechProb === undefined ? {} : { noSpeechProb }) };
  }

  private feeds(
    session: InferenceSession,
    tokens: number[],
    encoderHidden: Tensor,
    cache: Record<string, Tensor> | null,
  ): Record<string, Tensor> {
    const all: Record<string, Tensor> = {
      input_ids: new Tensor('int64', BigInt64Array.from(tokens.map(BigInt)), [1, tokens.length]),
      encoder_hidden_states: encoderHidden,
      use_cache_branch: new Tensor('bool', [cache !== null], [1]),
      ...(cache ?? this.emptyCache()),
    };
    const feeds: Record<string, Tensor> = {};
    for (const name of session.inputNames) {
      const value = all[name];
      if (!value) throw new Error(`the decoder wants an input ${name} that a transformers.js Whisper/Moonshine decoder does not have`);
      feeds[name] = value;
    }
    return feeds;
  }

  private emptyCache(): Record<string, Tensor> {
    const empty = new Tensor('float32', new Float32Array(0), [1, this.kv.heads, 0, this.kv.headDim]);
    const cache: Record<string, Tensor> = {};
    for (let i = 0; i < this.layers; i++) {
      for (const part of ['decoder.key', 'decoder.value', 'encoder.key', 'encoder.value']) cache[`past_key_values.${i}.${part}`] = empty;
    }
    return cache;
  }

  /** present.N.decoder.* of this step; present.N.encoder.* of the first step (later steps only repeat it). */
  private nextCache(out: InferenceSession.OnnxValueMapType, previous: Record<string, Tensor> | null): Record<string, Tensor> {
    const cache: Record<string, Tensor> = {};
    for (let i = 0; i < this.layers; i++) {
      for (const part of ['decoder.key', 'decoder.value', 'encoder.key', 'encoder.value']) {
        const fromPrevious = previous && part.startsWith('encoder') ? previous[`past_key_values.${i}.${part}`] : undefined;
        const present = fromPrevious ?? (out[`present.${i}.${part}`] as Tensor | undefined);
        if (!present) throw new Error(`the decoder did not return present.${i}.${part}`);
        cache[`past_key_values.${i}.${part}`] = present;
      }
    }
    return cache;
  }
}

const GREEDY: Sampling = { temperature: 0, random: Math.random };

/** Row `index` of logits [1, S, vocab] (a copy). */
function row(logits: InferenceSession.OnnxValueMapType[string], index: number): Float32Array {
  const tensor = logits as Tensor;
  const vocab = tensor.dims[tensor.dims.length - 1]!;
  const data = tensor.data as Float32Array;
  return Float32Array.from(data.subarray(index * vocab, (index + 1) * vocab));
}

function lastRow(logits: InferenceSession.OnnxValueMapType[string]): Float32Array {
  const tensor = logits as Tensor;
  return row(logits, tensor.dims[tensor.dims.length - 2]! - 1);
}

function argmax(values: Float32Array): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i]! > values[best]!) best = i;
  return best;
}

/** log(sum(exp(values / temperature))), stable; -Infinity entries (suppressed) count for nothing. */
function logSumExp(values: Float32Array, temperature = 1): number {
  let max = -Infinity;
  for (const v of values) if (v > max) max = v;
  let sum = 0;
  for (const v of values) sum += Math.exp((v - max) / temperature);
  return max / temperature + Math.log(sum);
}

export function logSoftmaxAt(logits: Float32Array, index: number): number {
  return logits[index]! - logSumExp(logits);
}

export function softmaxAt(logits: Float32Array, index: number): number {
  return Math.exp(logSoftmaxAt(logits, index));
}

/** A draw from softmax(logits / temperature). */
function sample(logits: Float32Array, { temperature, random }: Sampling): number {
  const norm = logSumExp(logits, temperature);
  let u = random();
  let last = 0;
  for (let i = 0; i < logits.length; i++) {
    if (logits[i] === -Infinity) continue;
    last = i;
    u -= Math.exp(logits[i]! / temperature - norm);
    if (u < 0) return i;
  }
  return last;
}
