import { Tensor, type InferenceSession } from 'onnxruntime-node';
import { throwIfAborted } from '../../speech/abort.js';

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

  constructor(private readonly sessions: DecoderSessions, private readonly kv: KvShape) {
    const cached = 'merged' in sessions ? sessions.merged : sessions.withPast;
    this.layers = cached.inputNames.filter((n) => PAST.test(n)).length;
    if (this.layers === 0) throw new Error('the decoder has no past_key_values.N.decoder.key inputs (not a transformers.js decoder with cache)');
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

  /** The generated tokens after the prompt, EOS not included. */
  async generate(encoderHidden: Tensor, plan: GenerationPlan, signal?: AbortSignal): Promise<number[]> {
    const generated: number[] = [];
    let cache: Record<string, Tensor> | null = null;
    let step = plan.prompt;
    while (plan.prompt.length + generated.length < plan.maxLength) {
      throwIfAborted(signal);
      const session = 'merged' in this.sessions ? this.sessions.merged : cache ? this.sessions.withPast : this.sessions.first;
      const out = await session.run(this.feeds(session, step, encoderHidden, cache));
      const logits = lastRow(out.logits!);
      for (const id of plan.suppress) if (id < logits.length) logits[id] = -Infinity;
      if (plan.suppressFrom !== undefined) logits.fill(-Infinity, plan.suppressFrom);
      if (generated.length === 0) for (const id of plan.beginSuppress) if (id < logits.length) logits[id] = -Infinity;
      const next = argmax(logits);
      if (next === plan.eos) break;
      generated.push(next);
      cache = this.nextCache(out, cache);
      step = [next];
    }
    return generated;
  }

  private feeds(session: InferenceSession, tokens: number[], encoderHidden: Tensor, cache: Record<string, Tensor> | null): Record<string, Tensor> {
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

function lastRow(logits: InferenceSession.OnnxValueMapType[string]): Float32Array {
  const tensor = logits as Tensor;
  const vocab = tensor.dims[tensor.dims.length - 1]!;
  const data = tensor.data as Float32Array;
  return Float32Array.from(data.subarray(data.length - vocab));
}

function argmax(values: Float32Array): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i]! > values[best]!) best = i;
  return best;
}
