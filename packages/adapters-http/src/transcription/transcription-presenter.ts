import type { DetailedTranscript } from '@svc/core';

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

/** The body and content type of each response_format. */
export function presentTranscript(t: DetailedTranscript, format: TranscriptionFormat, wantWords: boolean, wantSegments: boolean): { body: unknown; type: string } {
  if (format === 'text') return { body: t.text + '\n', type: 'text/plain; charset=utf-8' };
  if (format === 'srt') {
    return { body: t.segments.map((s, i) => `${i + 1}\n${clock(s.start, ',')} --> ${clock(s.end, ',')}\n${s.text}\n`).join('\n'), type: 'application/x-subrip; charset=utf-8' };
  }
  if (format === 'vtt') {
    return { body: `WEBVTT\n\n${t.segments.map((s) => `${clock(s.start, '.')} --> ${clock(s.end, '.')}\n${s.text}\n`).join('\n')}`, type: 'text/vtt; charset=utf-8' };
  }
  if (format === 'json') return { body: { text: t.text }, type: 'application/json' };
  const body: Record<string, unknown> = { task: 'transcribe', language: languageName(t.language), duration: round(t.duration), text: t.text };
  if (wantSegments) body.segments = t.segments.map((s, id) => ({ id, seek: 0, start: round(s.start), end: round(s.end), text: s.text, tokens: [], temperature: 0 }));
  // Words only where the engine timed them (an upstream server that returns them); never invented.
  if (wantWords && t.words) body.words = t.words.map((w) => ({ word: w.word, start: round(w.start), end: round(w.end) }));
  return { body, type: 'application/json' };
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
