import type { Logger, ReplySpeaker, ReplySpeechRequest } from '@svc/core';

/** What the warm-up says: a sentence like a reply's first one (the default voice, the default output rate). */
const WARM_UP_SENTENCE = 'Hello there, how can I help you today?';
const WARM_UP_RATE = 24_000;

/**
 * Speaks one reply sentence on each synthesis thread, so that the first session's first reply is as
 * quick as the next ones. Loaded is not warm: a thread's first synthesis ran in code the JavaScript
 * engine had not yet optimized (flite's WASM, the resampler) and took about twice as long, and the
 * first reply a fresh server spoke waited for it (docs/benchmarks.md, "The first reply of a fresh
 * server"). The sentences run at once, so that each thread takes one: threads already started (as
 * SVC_SPEECH_WARM_UP=blocking, the default, starts them), and threads the first sentence starts
 * too, since the pool starts them all together and the first sentence outlasts the others' start
 * (measured in the same section).
 */
export async function warmReplySpeech(speaker: ReplySpeaker, threads: number): Promise<void> {
  const request = {
    text: WARM_UP_SENTENCE,
    voice: 'default',
    principal: { apiKeyId: 'warm-up', name: 'warm-up' },
    sampleRate: WARM_UP_RATE,
    speed: 1,
  };
  const signal = new AbortController().signal;
  await Promise.all(Array.from({ length: threads }, () => spokenToTheEnd(speaker.speak(request, signal))));
}

async function spokenToTheEnd(chunks: AsyncIterable<Int16Array>): Promise<void> {
  for await (const chunk of chunks) void chunk;
}

/**
 * The reply speaker, warmed once (warmReplySpeech): at start (`warm()`, SVC_REALTIME_WARM_UP
 * background or blocking), or else when the first session that speaks its replies hears its user
 * start speaking (`warmUp()`, from the core), so that the reply comes after the warm-up, not with
 * it, and a server that never speaks a reply holds nothing for it.
 */
export class WarmingReplySpeaker implements ReplySpeaker {
  private warming: Promise<void> | null = null;

  constructor(
    private readonly inner: ReplySpeaker,
    private readonly threads: number,
    private readonly logger: Logger,
  ) {}

  speak(request: ReplySpeechRequest, signal: AbortSignal): AsyncIterable<Int16Array> {
    return this.inner.speak(request, signal);
  }

  /** Warms now (once) and resolves when done. */
  warm(): Promise<void> {
    this.warming ??= warmReplySpeech(this.inner, this.threads);
    return this.warming;
  }

  warmUp(): void {
    if (this.warming) return;
    this.warm().catch((err: unknown) => this.logger.warn({ err: String(err) }, 'reply speech: warming up failed'));
  }
}
