import { InvalidParameterError, MissingParameterError } from '@svc/core';

/** The `voice` of `synthesize` / `synthesize-start`: a name from `info`, else a language. */
export interface VoiceChoice {
  name: string | null;
  language: string | null;
}

/** BCP-47 or POSIX style (`en`, `en-US`, `en_US`), the shape the speech use case accepts. */
const LANGUAGE_TAG = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8}){0,7}$/;
const MAX_LANGUAGE_CHARS = 35;
const MAX_VOICE_NAME_CHARS = 200;

export function voiceOf(data: Record<string, unknown>): VoiceChoice {
  const voice = data.voice;
  if (voice === undefined || voice === null) return { name: null, language: null };
  if (typeof voice !== 'object' || Array.isArray(voice))
    throw new InvalidParameterError("'voice' must be an object with 'name' or 'language'.", 'voice');
  const { name, language } = voice as Record<string, unknown>;
  if (name !== undefined && name !== null && (typeof name !== 'string' || name.trim() === '' || name.length > MAX_VOICE_NAME_CHARS)) {
    throw new InvalidParameterError("'voice.name' must be a voice name from the info event.", 'voice.name');
  }
  // A name overrides the language, as the protocol says.
  if (typeof name === 'string') return { name, language: null };
  return { name: null, language: languageOf(language, 'voice.language') };
}

/** An optional language tag (`transcribe.language`, `voice.language`), as `en-US`. */
export function languageOf(value: unknown, param: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > MAX_LANGUAGE_CHARS || !LANGUAGE_TAG.test(value)) {
    throw new InvalidParameterError(`'${param}' must be a language tag such as 'en', 'en-US' or 'en_US'.`, param);
  }
  return value.replace(/_/g, '-');
}

export function textOf(data: Record<string, unknown>, event: string): string {
  const text = data.text;
  if (text === undefined || text === null) throw new MissingParameterError(`${event}.text`);
  if (typeof text !== 'string') throw new InvalidParameterError(`'${event}.text' must be a string.`, `${event}.text`);
  return text;
}

/** Plain text (with inline tags) only: SSML is not read. */
export function checkTextFormat(data: Record<string, unknown>, event: string): void {
  const format = data.text_format;
  if (format === undefined || format === null || format === 'text') return;
  throw new InvalidParameterError(
    `'${event}.text_format' '${String(format)}' is not supported: send plain text (inline tags such as <|emotion:happy|> work).`,
    `${event}.text_format`,
  );
}
