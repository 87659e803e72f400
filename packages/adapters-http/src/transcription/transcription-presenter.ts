import type { DetailedTranscript, TranscriptSegment } from '@svc/core';

export const TRANSCRIPTION_FORMATS = ['json', 'text', 'verbose_json', 'srt', 'vtt'] as const;
export type TranscriptionFormat = (typeof TRANSCRIPTION_FORMATS)[number];

const languageNames = new Intl.DisplayNames(['en'], { type: 'language' });

/** `en` -> `english`, as the API this endpoint follows names languages in verbose answers. */
function languageName(code: string | null): string | null {
  if (!code) return null;
  try {
    return languageNames.of(code)?.toLowerCase() ?? code;
  } catch {
    return code;
  }
}

function clock(seconds: number, separator: ',' | '.'): string {
  const ms = Math.round(seconds * 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${separator}${pad(ms % 1000, 3)}`;
}

/** Seconds billed the way OpenAI reports duration usage (whole seconds, rounded up). */
export function durationUsage(t: DetailedTranscript): { type: 'duration'; seconds: number } {
  return { type: 'duration', seconds: Math.ceil(t.duration) };
}

/** The body and content type of each response_format. */
export function presentTranscript(
  t: DetailedTranscript,
  format: TranscriptionFormat,
  wantWords: boolean,
  wantSegments: boolean,
): { body: unknown; type: string } {
  if (format === 'text') return { body: t.text + '\n', type: 'text/plain; charset=utf-8' };
  if (format === 'srt') {
    return {
      body: t.segments.map((s, i) => `${i + 1}\n${clock(s.start, ',')} --> ${clock(s.end, ',')}\n${s.text}\n`).join('\n'),
      type: 'application/x-subrip; charset=utf-8',
    };
  }
  if (format === 'vtt') {
    return {
      body: `WEBVTT\n\n${t.segments.map((s) => `${clock(s.start, '.')} --> ${clock(s.end, '.')}\n${s.text}\n`).join('\n')}`,
      type: 'text/vtt; charset=utf-8',
    };
  }
  if (format === 'json') return { body: { text: t.text, usage: durationUsage(t) }, type: 'application/json' };
  const body: Record<string, unknown> = {
    task: 'transcribe',
    language: languageName(t.language),
    duration: round(t.duration),
    text: t.text,
  };
  if (wantSegments) body.segments = t.segments.map(presentSegment);
  // Words only where the engine timed them (an upstream server that returns them); never invented.
  if (wantWords && t.words) body.words = t.words.map((w) => ({ word: w.word, start: round(w.start), end: round(w.end) }));
  body.usage = durationUsage(t);
  return { body, type: 'application/json' };
}

/**
 * OpenAI's verbose segment, every field always present (clients such as the AI SDK require them
 * all as numbers). What each engine puts in the figures is in docs/transcription.md; a figure the
 * engine does not give is shown as NOT_MEASURED's value, chosen so that Whisper-style filters
 * (drop a segment when no_speech_prob > 0.6 and avg_logprob < -1, or compression_ratio > 2.4)
 * never drop it.
 */
function presentSegment(s: TranscriptSegment, id: number) {
  return {
    id,
    // Whisper's window offset in 10 ms frames; an engine without windows: the segment's start.
    seek: s.seek ?? Math.round(s.start * 100),
    start: round(s.start),
    end: round(s.end),
    text: s.text,
    tokens: s.tokens ?? [],
    temperature: s.temperature ?? NOT_MEASURED.temperature,
    avg_logprob: figure(s.avgLogprob ?? NOT_MEASURED.avgLogprob),
    compression_ratio: figure(s.compressionRatio ?? NOT_MEASURED.compressionRatio),
    no_speech_prob: figure(s.noSpeechProb ?? NOT_MEASURED.noSpeechProb),
  };
}

/** What a segment shows for a figure its engine did not give (documented in docs/transcription.md). */
export const NOT_MEASURED = { avgLogprob: 0, compressionRatio: 0, noSpeechProb: 0, temperature: 0 } as const;

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

function figure(value: number): number {
  return Math.round(value * 10000) / 10000;
}
