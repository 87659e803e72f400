import type { DetailedTranscript } from '@svc/core';

/** OpenAI's published rate for audio given to its models (1 token per 100 ms). */
const AUDIO_TOKENS_PER_SECOND = 10;

const words = (text: string | undefined): number => (text ? text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length : 0);

/**
 * `transcript.text.done` with OpenAI's token usage. The recognizers here count no tokens, so the
 * figures are in OpenAI's units (docs/transcription.md): audio tokens one per 100 ms of input, text
 * tokens the words of the prompt, output tokens the words of the transcript (the segments' own
 * token ids where the engine gives them).
 */
export function transcriptDoneEvent(t: DetailedTranscript, prompt: string | undefined): object {
  const audioTokens = Math.ceil(t.duration * AUDIO_TOKENS_PER_SECOND);
  const textTokens = words(prompt);
  const tokenIds = t.segments.reduce((n, s) => n + (s.tokens?.length ?? 0), 0);
  const outputTokens = tokenIds > 0 ? tokenIds : words(t.text);
  const inputTokens = audioTokens + textTokens;
  return {
    type: 'transcript.text.done',
    text: t.text,
    usage: {
      type: 'tokens',
      input_tokens: inputTokens,
      input_token_details: { audio_tokens: audioTokens, text_tokens: textTokens },
      output_tokens: outputTokens,
      total_tokens: inputTokens + outputTokens,
    },
  };
}
