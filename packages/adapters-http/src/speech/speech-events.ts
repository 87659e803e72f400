import type { SpeechResult } from '@svc/core';

/**
 * OpenAI's speech events (`stream_format: "sse"`): one `speech.audio.delta` per piece of encoded
 * audio as the synthesis produces it (a sentence or clause of pcm, ffmpeg's output pieces for the
 * compressed formats, the whole file for wav), then `speech.audio.done` with usage. The service
 * counts no tokens, so usage is in OpenAI's units for audio models, documented in docs/speech.md:
 * input tokens are the words of the input, output tokens one per 50 ms of audio.
 */
export async function* speechEvents(result: SpeechResult, input: string): AsyncGenerator<object> {
  for await (const chunk of result.body) {
    yield { type: 'speech.audio.delta', audio: Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('base64') };
  }
  const inputTokens = wordCount(input);
  const outputTokens = Math.ceil((result.stats.samples / result.sampleRate) * AUDIO_TOKENS_PER_SECOND);
  yield {
    type: 'speech.audio.done',
    usage: { input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
  };
}

/** OpenAI's published rate for generated audio (1 token per 50 ms). */
const AUDIO_TOKENS_PER_SECOND = 20;

function wordCount(text: string): number {
  return text
    .replace(/<\|[^|]*\|>/g, ' ')
    .split(/\s+/)
    .filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
}
