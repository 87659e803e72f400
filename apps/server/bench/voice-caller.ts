import { join } from 'node:path';
import WebSocket from 'ws';
import { alignedSpeechEndMs } from '../test/helpers/forced-alignment.js';
import { LIBRIVOX_DIR, librivoxSentences } from '../test/helpers/librivox.js';

export const SILENCE_DURATION_MS = 500;
/** Silence before the first sentence and after each: the user listens to the reply's start, then speaks again. */
const LEAD_IN_MS = 500;
const PAUSE_MS = 1500;
const BYTES_PER_MS = 32; // 16 kHz s16

export interface Clip {
  words: string;
  pcm: Buffer;
  /** Where the speech ends (ms into `pcm`): the end of its last word, aligned by pocketsphinx to the words said. */
  wordsEndMs: number;
  /** Where the last loud 10 ms ends (ms into `pcm`, within LOUD_DB_BELOW_PEAK of the loudest): the measure before the alignment. */
  lastLoudMs: number;
}

/** A 10 ms frame within this many dB of the clip's loudest frame is loud (the reader's hiss and breaths are not). */
const LOUD_DB_BELOW_PEAK = 30;
/** A reply sample at or above this (about -44 dBFS) is sound: the level the speech output's trim uses. */
const AUDIBLE = 200;
const REPLY_RATE = 24000;

/** The level (RMS, full scale 1) of each 10 ms of 16 kHz `samples`: what the benches' end and onset rules read. */
export function levels10ms(samples: Int16Array): number[] {
  const frame = 160;
  const rms: number[] = [];
  for (let i = 0; i + frame <= samples.length; i += frame) {
    let e = 0;
    for (let k = 0; k < frame; k++) e += (samples[i + k]! / 32768) ** 2;
    rms.push(Math.sqrt(e / frame));
  }
  return rms;
}

/** The end (ms) of the last 10 ms frame of `pcm` (16 kHz s16) within LOUD_DB_BELOW_PEAK of its loudest. */
export function lastLoudMs(pcm: Buffer): number {
  const rms = levels10ms(new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + (pcm.length & ~1))));
  const floor = Math.max(...rms) * 10 ** (-LOUD_DB_BELOW_PEAK / 20);
  let last = rms.length - 1;
  while (last > 0 && rms[last]! < floor) last--;
  return (last + 1) * 10;
}

/** The five LibriVox sentences of pocketsphinx-testdata (a human reader, 16 kHz mono s16) and what is said. */
export function librivoxClips(): Clip[] {
  return librivoxSentences().map((s) => {
    const pcm = Buffer.from(s.samples.buffer, s.samples.byteOffset, s.samples.byteLength);
    return { words: s.words, pcm, wordsEndMs: alignedSpeechEndMs(join(LIBRIVOX_DIR, `${s.id}.wav`), s.words), lastLoudMs: lastLoudMs(pcm) };
  });
}

export interface TurnTiming {
  /** speech_stopped -> first response.output_audio.delta (ms, as the client saw them). */
  fromStopped: number;
  /** Last speech sample sent -> first audio delta: adds the silence_duration_ms the VAD waits. */
  fromSpeechEnd: number;
  /** speech_stopped -> transcript. */
  transcript: number;
  /**
   * The end of the sentence's last word -> the reply's first sound as this client would play it
   * (deltas played back to back from the first one's arrival, or later when a delta arrives late).
   */
  heard: number;
  /** The same from the last loud 10 ms (within LOUD_DB_BELOW_PEAK of the loudest), as measured before the alignment. */
  heardAfterLastLoud: number;
  /** Where the server's detector put the end of speech (`audio_end_ms`) after the end of the last word (ms; negative: before it). */
  detectorEndAfterWords: number;
  /** Silence (ms) before the reply's first sound. */
  leadingSilence: number;
}

export interface ConverseOptions {
  /** The session's `turn_detection` (default: server_vad with SILENCE_DURATION_MS). */
  turnDetection?: Record<string, unknown>;
  /** Silence after each sentence (ms, default 1500): longer lets a slow reply start before the next sentence. */
  pauseMs?: number;
}

export interface CallResult {
  /** Closed before `session.created` (admission): the close code and reason. */
  refused: { code: number; reason: string } | null;
  turns: TurnTiming[];
  /** What was said, sentence by sentence, and what the server transcribed. */
  reference: string[];
  heard: string[];
  /** Sentences that got no reply audio, no `error` saying why, and no response cancelled by the next sentence (silently dropped). */
  missed: number;
  /**
   * Sentences whose reply had not started when the caller's next sentence began: the response ends
   * `cancelled` (barge-in, as the API does). Not silent, but a caller who waited 1.5 s in vain: on a
   * starved server this is how late replies show.
   */
  interrupted: number;
  /** Sentences without reply audio for which the server sent an `error` (a turn it could not answer). */
  explained: number;
  /** Codes of every `error` event received. */
  errors: string[];
  /** Seconds of audio streamed (the session-seconds this caller used). */
  streamedSeconds: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One caller: the sentences with pauses, streamed at real-time pace in `appendMs` appends over
 * the realtime WebSocket, server VAD; each turn timed from `speech_stopped` to its first reply
 * audio. The next sentence barges into the reply, as an impatient caller does.
 */
export function converse(
  ctx: { wsUrl: string; apiKey: string },
  sentences: Clip[],
  appendMs: number,
  options: ConverseOptions = {},
): Promise<CallResult> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${ctx.wsUrl}/v1/realtime?model=svc-realtime`, { headers: { Authorization: `Bearer ${ctx.apiKey}` } });
    const result: CallResult = {
      refused: null,
      turns: [],
      reference: sentences.map((s) => s.words),
      heard: sentences.map(() => ''),
      missed: 0,
      interrupted: 0,
      explained: 0,
      errors: [],
      streamedSeconds: 0,
    };
    // Where each sentence's speech starts and ends in the stream (ms).
    const starts: number[] = [];
    const speechEnds: number[] = [];
    const wordsEnd: number[] = [];
    const lastLoud: number[] = [];
    const parts: Buffer[] = [Buffer.alloc(LEAD_IN_MS * BYTES_PER_MS)];
    let at = LEAD_IN_MS;
    for (const s of sentences) {
      const pauseMs = options.pauseMs ?? PAUSE_MS;
      parts.push(s.pcm, Buffer.alloc(pauseMs * BYTES_PER_MS));
      starts.push(at);
      wordsEnd.push(at + s.wordsEndMs);
      lastLoud.push(at + s.lastLoudMs);
      at += s.pcm.length / BYTES_PER_MS;
      speechEnds.push(at);
      at += pauseMs;
    }
    const audio = Buffer.concat(parts);
    let streamStart = 0;
    let created = false;
    let finished = false;
    // The sentence being answered (the last one begun when its speech_stopped came), and when.
    let sentence = -1;
    let stoppedAt = 0;
    let detectorEnd = NaN;
    const replied = new Set<number>();
    // The reply being listened for: its first delta's arrival and the samples received before the current delta.
    let listening: { sentence: number; firstAt: number; samples: number; timing: TurnTiming } | null = null;
    const failed = new Set<number>();
    const interrupted = new Set<number>();
    // The sentence each response answers (the one whose speech_stopped created it).
    const responses = new Map<string, number>();
    const transcriptAt = new Map<number, number>();
    const items = new Map<string, number>();
    let committed = 0;
    let transcribed = 0;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      result.missed = sentences.filter((_, i) => !replied.has(i) && !failed.has(i) && !interrupted.has(i)).length;
      result.interrupted = sentences.filter((_, i) => !replied.has(i) && !failed.has(i) && interrupted.has(i)).length;
      result.explained = sentences.filter((_, i) => !replied.has(i) && failed.has(i)).length;
      resolve(result);
    };
    const timer = setTimeout(
      () => {
        ws.terminate();
        reject(new Error('voice loop conversation timed out'));
      },
      audio.length / BYTES_PER_MS + 90_000,
    );
    const stream = async () => {
      streamStart = performance.now();
      const step = appendMs * BYTES_PER_MS;
      for (let i = 0, n = 0; i < audio.length && ws.readyState === WebSocket.OPEN; i += step, n++) {
        ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: audio.subarray(i, i + step).toString('base64') }));
        const due = streamStart + (n + 1) * appendMs - performance.now();
        if (due > 0) await sleep(due);
      }
      result.streamedSeconds = (performance.now() - streamStart) / 1000;
      // The last reply gets a moment to arrive, and every turn's transcript or error (late ones too: the WER counts them).
      await sleep(3000);
      const deadline = performance.now() + 30_000;
      while (transcribed < committed && performance.now() < deadline && ws.readyState === WebSocket.OPEN) await sleep(100);
      ws.close();
      finish();
    };
    ws.on('open', () =>
      ws.send(
        JSON.stringify({
          type: 'session.update',
          session: {
            type: 'realtime',
            output_modalities: ['audio'],
            audio: {
              input: {
                format: { type: 'audio/pcm', rate: 16000 },
                transcription: { model: 'svc-stt-3.1' },
                turn_detection: options.turnDetection ?? { type: 'server_vad', silence_duration_ms: SILENCE_DURATION_MS },
              },
            },
          },
        }),
      ),
    );
    ws.on('close', (code, reason) => {
      if (!created) {
        result.refused = { code, reason: reason.toString() };
        finish();
      }
    });
    ws.on('message', (data) => {
      const now = performance.now();
      const event = JSON.parse(data.toString()) as {
        type: string;
        item_id?: string;
        transcript?: string;
        error?: { code?: string };
        response?: { id: string; status: string };
      };
      if (event.type === 'session.created') {
        created = true;
        void stream();
      } else if (event.type === 'input_audio_buffer.speech_stopped') {
        // Where the turn ended in the audio sent (not when the event came: a loaded server lags).
        const endMs = (event as { audio_end_ms?: number }).audio_end_ms ?? now - streamStart;
        sentence = starts.filter((start) => start <= endMs).length - 1;
        detectorEnd = endMs;
        committed++;
        stoppedAt = now;
        items.set(event.item_id!, sentence);
      } else if (event.type === 'conversation.item.input_audio_transcription.completed') {
        const index = items.get(event.item_id!);
        // A sentence the VAD split in two turns gets both transcripts.
        if (index !== undefined && index >= 0) result.heard[index] = `${result.heard[index]} ${event.transcript ?? ''}`.trim();
        transcribed++;
        if (index === sentence && !transcriptAt.has(sentence)) transcriptAt.set(sentence, now);
      } else if (event.type === 'response.created' && sentence >= 0) {
        responses.set(event.response!.id, sentence);
      } else if (event.type === 'response.done' && event.response!.status === 'cancelled') {
        const answered = responses.get(event.response!.id);
        if (answered !== undefined) interrupted.add(answered);
      } else if (event.type === 'response.output_audio.delta' && sentence >= 0 && !replied.has(sentence)) {
        replied.add(sentence);
        const speechEndAt = streamStart + speechEnds[sentence]!;
        const timing = {
          fromStopped: now - stoppedAt,
          fromSpeechEnd: now - speechEndAt,
          transcript: (transcriptAt.get(sentence) ?? NaN) - stoppedAt,
          heard: NaN,
          heardAfterLastLoud: NaN,
          detectorEndAfterWords: detectorEnd - wordsEnd[sentence]!,
          leadingSilence: NaN,
        };
        result.turns.push(timing);
        listening = { sentence, firstAt: now, samples: 0, timing };
        listen(listening, (event as { delta?: string }).delta ?? '', now);
      } else if (event.type === 'response.output_audio.delta' && listening?.sentence === sentence && Number.isNaN(listening.timing.heard)) {
        listen(listening, (event as { delta?: string }).delta ?? '', now);
      } else if (event.type === 'error') {
        result.errors.push(event.error?.code ?? 'unknown');
        // A turn dropped with an error has its outcome: the wait for transcripts below stops counting it.
        if (event.error?.code === 'server_overloaded' || event.error?.code === 'transcription_failed') transcribed++;
        if (sentence >= 0) failed.add(sentence);
      }
    });
    /** One delta of the reply listened for (24 kHz pcm): dates its first sound, if it is in this delta. */
    const listen = (l: NonNullable<typeof listening>, delta: string, arrivedAt: number) => {
      const bytes = Buffer.from(delta, 'base64');
      const pcm = new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + (bytes.length & ~1)));
      const first = pcm.findIndex((x) => x >= AUDIBLE || x <= -AUDIBLE);
      if (first < 0) {
        l.samples += pcm.length;
        return;
      }
      const offsetMs = ((l.samples + first) / REPLY_RATE) * 1000;
      const soundAt = Math.max(arrivedAt, l.firstAt + offsetMs);
      l.timing.heard = soundAt - (streamStart + wordsEnd[l.sentence]!);
      l.timing.heardAfterLastLoud = soundAt - (streamStart + lastLoud[l.sentence]!);
      l.timing.leadingSilence = offsetMs;
    };
    ws.on('error', (err) => {
      if (!created) return; // a refused upgrade closes; the close handler records it
      reject(err);
    });
  });
}
