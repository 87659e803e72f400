import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import WebSocket from 'ws';
import { wordErrorRate } from '../test/helpers/wer.js';
import { cpuMs, percentile, round } from './harness.js';

const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
const SILENCE_DURATION_MS = 500;
const APPEND_MS = 100;
/** Silence before the first sentence and between sentences: the user listens to the reply's start, then speaks again. */
const LEAD_IN_MS = 500;
const PAUSE_MS = 1500;
const BYTES_PER_MS = 32; // 16 kHz s16

interface Clip {
  words: string;
  pcm: Buffer;
}

/** The five LibriVox sentences of pocketsphinx-testdata (a human reader, 16 kHz mono s16) and what is said. */
function clips(): Clip[] {
  return readFileSync(`${LIBRIVOX}/transcription`, 'utf8')
    .trim()
    .split('\n')
    .map((line) => /^<s> (.*) <\/s> \((.*)\)$/.exec(line.trim())!)
    .map(([, words, id]) => {
      const wav = readFileSync(`${LIBRIVOX}/${id}.wav`);
      return { words: words!, pcm: wav.subarray(wav.indexOf('data') + 8) };
    });
}

interface TurnTiming {
  /** speech_stopped -> first response.output_audio.delta (ms, as the client saw them). */
  fromStopped: number;
  /** Last speech sample sent -> first audio delta: adds the silence_duration_ms the VAD waits. */
  fromSpeechEnd: number;
  /** speech_stopped -> transcript. */
  transcript: number;
}

interface Conversation {
  turns: TurnTiming[];
  /** What was said, sentence by sentence, and what the server transcribed. */
  reference: string[];
  heard: string[];
  /** Sentences that got no reply audio (overload or a missed turn). */
  missed: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The realtime voice loop with the real engines, as people use it: conversations of five turns
 * (the LibriVox sentences, 1.5 s of silence after each while the reply starts) streamed in at
 * real-time pace (100 ms appends), server VAD, warm streaming pocketsphinx, the embedded model and
 * spoken replies (24 kHz pcm); the next sentence barges into the reply, as an impatient caller does.
 * Timed from `speech_stopped` and from the true end of speech to the first audio delta, for 1, 5,
 * 10 and 20 conversations at once, with the word error rate of their transcripts, the CPU used per
 * second of conversation (this process — server and clients — and the decoder processes apart) and
 * the load average (the machine may be shared: CPU per session-second is the steadier figure).
 */
export async function benchVoiceLoop(ctx: { wsUrl: string; apiKey: string }): Promise<Record<string, number | string>> {
  const speech = clips();
  const out: Record<string, number | string> = {};
  const levels = (process.env.SVC_BENCH_VOICE_SESSIONS ?? '1,5,10,20').split(',').map(Number);
  for (const sessions of levels) {
    const load = loadavg()[0]!;
    const cpuBefore = cpuMs();
    const started = performance.now();
    // A single conversation runs three times (15 turns) so its p95 means something.
    const runs = sessions === 1 ? 3 : 1;
    const conversations: Conversation[] = [];
    for (let run = 0; run < runs; run++) {
      conversations.push(
        ...(await Promise.all(
          Array.from({ length: sessions }, async (_, i) => {
            // Staggered like real callers, so turns do not all end in the same 100 ms.
            await sleep((i * 1500) / sessions);
            // Each caller starts at another sentence.
            return converse(ctx, [...speech.slice(i % speech.length), ...speech.slice(0, i % speech.length)]);
          }),
        )),
      );
    }
    const wallS = (performance.now() - started) / 1000;
    const cpu = cpuMs();
    const label = `${sessions} session${sessions === 1 ? '' : 's'}`;
    const turns = conversations.flatMap((c) => c.turns);
    out[`${label}: load average (1 min) at start`] = round(load, 1);
    summarize(out, label, turns);
    const missed = conversations.reduce((n, c) => n + c.missed, 0);
    out[`${label}: turns without a reply`] = `${missed} of ${turns.length + missed}`;
    const wer = wordErrorRate(conversations.flatMap((c) => c.reference).join(' '), conversations.flatMap((c) => c.heard).join(' '));
    out[`${label}: WER of the turns' transcripts`] = `${round(wer * 100, 1)} %`;
    const perSessionSecond = (ms: number) => round(ms / (sessions * wallS), 1);
    const own = cpu.own - cpuBefore.own;
    const decoders = cpu.decoders - cpuBefore.decoders;
    out[`${label}: CPU per session-second, total / node (server + clients) / decoders (ms)`] =
      `${perSessionSecond(own + decoders)} / ${perSessionSecond(own)} / ${perSessionSecond(decoders)}`;
  }
  return out;
}

function summarize(out: Record<string, number | string>, label: string, t: TurnTiming[]): void {
  if (t.length === 0) return;
  const stopped = t.map((x) => x.fromStopped);
  const end = t.map((x) => x.fromSpeechEnd);
  out[`${label}: speech_stopped -> first audio delta p50 / p95 (ms, n=${t.length})`] = `${round(percentile(stopped, 50))} / ${round(percentile(stopped, 95))}`;
  out[`${label}: end of speech -> first audio delta p50 / p95 (ms, silence_duration_ms ${SILENCE_DURATION_MS})`] = `${round(percentile(end, 50))} / ${round(percentile(end, 95))}`;
  out[`${label}: speech_stopped -> transcript p50 (ms)`] = round(percentile(t.map((x) => x.transcript), 50));
}

/** One caller: the sentences with pauses, streamed at real-time pace; each turn timed to its first reply audio. */
function converse(ctx: { wsUrl: string; apiKey: string }, sentences: Clip[]): Promise<Conversation> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${ctx.wsUrl}/v1/realtime?model=svc-realtime`, { headers: { Authorization: `Bearer ${ctx.apiKey}` } });
    const result: Conversation = { turns: [], reference: sentences.map((s) => s.words), heard: sentences.map(() => ''), missed: 0 };
    // Where each sentence's speech starts and ends in the stream (ms).
    const starts: number[] = [];
    const speechEnds: number[] = [];
    const parts: Buffer[] = [Buffer.alloc(LEAD_IN_MS * BYTES_PER_MS)];
    let at = LEAD_IN_MS;
    for (const s of sentences) {
      parts.push(s.pcm, Buffer.alloc(PAUSE_MS * BYTES_PER_MS));
      starts.push(at);
      at += s.pcm.length / BYTES_PER_MS;
      speechEnds.push(at);
      at += PAUSE_MS;
    }
    const audio = Buffer.concat(parts);
    let streamStart = 0;
    // The sentence being answered (the last one begun when its speech_stopped came), and when.
    let sentence = -1;
    let stoppedAt = 0;
    const replied = new Set<number>();
    const transcriptAt = new Map<number, number>();
    const items = new Map<string, number>();
    let committed = 0;
    let transcribed = 0;
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error('voice loop conversation timed out'));
    }, audio.length / BYTES_PER_MS + 60_000);
    const stream = async () => {
      streamStart = performance.now();
      const step = APPEND_MS * BYTES_PER_MS;
      for (let i = 0, n = 0; i < audio.length && ws.readyState === WebSocket.OPEN; i += step, n++) {
        ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: audio.subarray(i, i + step).toString('base64') }));
        const due = streamStart + (n + 1) * APPEND_MS - performance.now();
        if (due > 0) await sleep(due);
      }
      // The last reply gets a moment to arrive, and every turn's transcript (late ones too: the WER counts them).
      await sleep(3000);
      const deadline = performance.now() + 30_000;
      while (transcribed < committed && performance.now() < deadline) await sleep(100);
      result.missed = sentences.length - replied.size;
      clearTimeout(timer);
      ws.close();
      resolve(result);
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
                turn_detection: { type: 'server_vad', silence_duration_ms: SILENCE_DURATION_MS },
              },
            },
          },
        }),
      ),
    );
    ws.on('message', (data) => {
      const now = performance.now();
      const event = JSON.parse(data.toString()) as { type: string; item_id?: string; transcript?: string };
      if (event.type === 'session.created') void stream();
      else if (event.type === 'input_audio_buffer.speech_stopped') {
        // Where the turn ended in the audio sent (not when the event came: a loaded server lags).
        const endMs = (event as { audio_end_ms?: number }).audio_end_ms ?? now - streamStart;
        sentence = starts.filter((start) => start <= endMs).length - 1;
        committed++;
        stoppedAt = now;
        items.set(event.item_id!, sentence);
      } else if (event.type === 'conversation.item.input_audio_transcription.completed') {
        const index = items.get(event.item_id!);
        // A sentence the VAD split in two turns gets both transcripts.
        if (index !== undefined && index >= 0) result.heard[index] = `${result.heard[index]} ${event.transcript ?? ''}`.trim();
        transcribed++;
        if (index === sentence && !transcriptAt.has(sentence)) transcriptAt.set(sentence, now);
      } else if (event.type === 'response.output_audio.delta' && sentence >= 0 && !replied.has(sentence)) {
        replied.add(sentence);
        const speechEndAt = streamStart + speechEnds[sentence]!;
        result.turns.push({ fromStopped: now - stoppedAt, fromSpeechEnd: now - speechEndAt, transcript: (transcriptAt.get(sentence) ?? NaN) - stoppedAt });
      }
    });
    ws.on('error', reject);
  });
}
