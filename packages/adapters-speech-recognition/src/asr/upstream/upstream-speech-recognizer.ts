import type { PcmAudio, RecognitionOptions, RecognitionStream, SpeechRecognizer, TranscriptionOptions } from '@svc/core';
import { pcmToWav } from '@svc/adapters-runtime';
import { compressionRatio } from '../compression-ratio.js';
import { throwIfAborted } from '@svc/adapters-runtime';
import { StreamingResampler } from '@svc/adapters-runtime';
import { floatToInt16, RECOGNIZER_SAMPLE_RATE } from '../recognizer-input.js';
import { BufferedRecognitionStream } from '../seq2seq/buffered-recognition-stream.js';
import type { DetailedTranscript, TranscriptSegment, TranscriptWord } from '../seq2seq/transcript.js';

export interface UpstreamSpeechRecognizerOptions {
  /** Base URL ending before `/audio/transcriptions`, e.g. `http://127.0.0.1:8000/v1`. */
  baseUrl: string;
  apiKey?: string;
  /** The `model` field sent upstream (e.g. `whisper-1`, `Systran/faster-whisper-small`). */
  model: string;
  /** Whole-request limit: upload, recognition and the answer. */
  timeoutMs: number;
}

/** An answer larger than this is not a transcript of audio we would send. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/**
 * Any OpenAI-compatible `POST /audio/transcriptions` server (what operators run on a GPU:
 * faster-whisper / whisper.cpp servers, or a hosted API) as the recognizer. The audio is sent as a
 * 16 kHz mono WAV in a multipart upload with `response_format=verbose_json` and word timestamps
 * requested (servers that have them return them; the others answer without). A realtime turn is
 * buffered and sent once it ends: these servers do not stream.
 */
export class UpstreamSpeechRecognizer implements SpeechRecognizer {
  readonly engine = 'upstream';
  constructor(private readonly options: UpstreamSpeechRecognizerOptions) {}

  get name(): string {
    return this.options.model;
  }

  openStream(options: RecognitionOptions & { sampleRate: number }, signal: AbortSignal): RecognitionStream {
    return new BufferedRecognitionStream(options.sampleRate, signal, (samples) =>
      this.send(floatToInt16(samples), options.language, signal).then((t) => ({ text: t.text })),
    );
  }

  async transcribe(audio: PcmAudio, options: RecognitionOptions, signal?: AbortSignal): Promise<{ text: string }> {
    return { text: (await this.transcribeDetailed(audio, options, signal)).text };
  }

  /** The endpoint's `prompt` is passed on to the server (OpenAI-compatible servers take it as Whisper context). */
  async transcribeDetailed(audio: PcmAudio, options: TranscriptionOptions, signal?: AbortSignal): Promise<DetailedTranscript> {
    throwIfAborted(signal);
    const samples = floatToInt16(new StreamingResampler(audio.sampleRate, RECOGNIZER_SAMPLE_RATE).process(audio.samples));
    return this.send(samples, options.language, signal, options.prompt);
  }

  private async send(
    samples: Int16Array,
    language: string | null,
    signal: AbortSignal | undefined,
    prompt?: string,
  ): Promise<DetailedTranscript> {
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const form = new FormData();
    form.append('file', new Blob([pcmToWav({ samples, sampleRate: RECOGNIZER_SAMPLE_RATE })], { type: 'audio/wav' }), 'audio.wav');
    form.append('model', this.options.model);
    form.append('response_format', 'verbose_json');
    form.append('timestamp_granularities[]', 'word');
    form.append('timestamp_granularities[]', 'segment');
    if (language) form.append('language', language.split(/[-_]/)[0]!.toLowerCase());
    if (prompt) form.append('prompt', prompt);
    let body: string;
    try {
      const res = await fetch(`${this.options.baseUrl.replace(/\/+$/, '')}/audio/transcriptions`, {
        method: 'POST',
        headers: this.options.apiKey ? { Authorization: `Bearer ${this.options.apiKey}` } : {},
        body: form,
        signal: combined,
      });
      body = await readLimited(res);
      if (!res.ok) throw new Error(`upstream transcription server answered ${res.status}${body ? `: ${body.slice(0, 200)}` : ''}`);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted) throw new Error(`upstream transcription server did not answer within ${this.options.timeoutMs} ms`);
      const message = (error as Error).message;
      throw new Error(message.startsWith('upstream') ? message : `upstream transcription server failed: ${message}`);
    }
    return parseAnswer(body, samples.length / RECOGNIZER_SAMPLE_RATE);
  }
}

async function readLimited(res: Response): Promise<string> {
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.length;
    if (total > MAX_ANSWER_BYTES) throw new Error(`upstream transcription server answered more than ${MAX_ANSWER_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseAnswer(body: string, duration: number): DetailedTranscript {
  let json: { text?: unknown; language?: unknown; duration?: unknown; segments?: unknown; words?: unknown };
  try {
    json = JSON.parse(body) as typeof json;
  } catch {
    throw new Error(`upstream transcription server answered something that is not JSON: ${body.slice(0, 100)}`);
  }
  if (typeof json?.text !== 'string') throw new Error('upstream transcription server answered without a text field');
  const text = json.text.trim();
  const segments: TranscriptSegment[] = Array.isArray(json.segments)
    ? json.segments.filter(isTimed).map((s) => {
        const segmentText = String(s.text ?? '').trim();
        // A server that sends no compression ratio gets Whisper's, computed from the text it sent.
        return { start: s.start, end: s.end, text: segmentText, compressionRatio: compressionRatio(segmentText), ...segmentFigures(s) };
      })
    : text
      ? [{ start: 0, end: duration, text, compressionRatio: compressionRatio(text) }]
      : [];
  const words: TranscriptWord[] | undefined = Array.isArray(json.words)
    ? json.words.filter(isTimed).map((w) => ({ word: String((w as { word?: unknown }).word ?? '').trim(), start: w.start, end: w.end }))
    : undefined;
  return {
    text,
    language: typeof json.language === 'string' ? json.language : null,
    duration: typeof json.duration === 'number' ? json.duration : duration,
    segments,
    ...(words ? { words } : {}),
  };
}

/**
 * What the server said about a segment, passed through as sent (OpenAI's verbose_json names):
 * confidence figures, temperature, window offset and token ids; a field of the wrong type is dropped.
 */
function segmentFigures(segment: Record<string, unknown>): Partial<TranscriptSegment> {
  const number = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const figures: Partial<TranscriptSegment> = {
    avgLogprob: number(segment.avg_logprob),
    compressionRatio: number(segment.compression_ratio),
    noSpeechProb: number(segment.no_speech_prob),
    temperature: number(segment.temperature),
    seek: number(segment.seek),
    tokens: Array.isArray(segment.tokens) && segment.tokens.every((t) => Number.isInteger(t)) ? (segment.tokens as number[]) : undefined,
  };
  return Object.fromEntries(Object.entries(figures).filter(([, v]) => v !== undefined));
}

function isTimed(value: unknown): value is { start: number; end: number } & Record<string, unknown> {
  const v = value as { start?: unknown; end?: unknown };
  return typeof v?.start === 'number' && typeof v?.end === 'number';
}
