import { openSession, sleep, type RealtimeClient } from './realtime-client.js';
import type { RealtimeTestServer } from './realtime-server.js';
import { PAUSED_AT } from './paused-sentences.js';
import { RATE, recording } from './recorded-speech.js';
import { speakAtRealTimePace } from './spoken-audio.js';

/** Silence after the sentence: longer than the longest semantic_vad wait (an unfinished phrase). */
const AFTER_MS = 2600;
/** How long a loaded machine may take beyond that to report the turn. */
const SETTLE_MS = 10_000;

/** The recording with `pauseMs` of its own silence stretched in at `atSeconds`. */
export function withPause(samples: Int16Array, atSeconds: number, pauseMs: number): Int16Array {
  const at = Math.round(atSeconds * RATE);
  const out = new Int16Array(samples.length + Math.round((pauseMs / 1000) * RATE));
  out.set(samples.subarray(0, at));
  out.set(samples.subarray(at), at + (out.length - samples.length));
  return out;
}

const session = (type: 'server_vad' | 'semantic_vad') => ({
  output_modalities: ['text'],
  audio: { input: { format: { type: 'audio/pcm', rate: 16000 }, turn_detection: { type }, transcription: { model: 'svc-stt-3.1' } } },
});
const committed = (client: RealtimeClient) => client.events.filter((e) => e.type === 'input_audio_buffer.committed').length;

/** How many turns the server made of the clip (committed user turns). */
export async function turnsOf(s: RealtimeTestServer, type: 'server_vad' | 'semantic_vad', clip: Int16Array): Promise<number> {
  const { client } = await openSession(s.wsUrl, s.apiKey, session(type));
  try {
    await speakAtRealTimePace(client, clip);
    await speakAtRealTimePace(client, new Int16Array((AFTER_MS / 1000) * RATE));
    // A loaded machine judges behind real time: the turn's end may still be on its way.
    const deadline = performance.now() + SETTLE_MS;
    while (committed(client) === 0 && performance.now() < deadline) await sleep(100);
    return committed(client);
  } finally {
    await client.close();
  }
}

/**
 * The 20 recorded sentences of PAUSED_AT, each with a `pauseMs` pause stretched in at a clause
 * boundary, spoken to semantic_vad two callers at a time (real-time pace): the turns each made, and
 * the sentences split in more than one.
 */
export async function pausedSentenceTurns(s: RealtimeTestServer, pauseMs: number): Promise<{ turns: number[]; split: string[] }> {
  const clips = PAUSED_AT.map((p) => ({ ...p, samples: withPause(recording(p.file), p.seconds, pauseMs) }));
  const turns: number[] = new Array(clips.length).fill(0);
  for (let i = 0; i < clips.length; i += 2) {
    const batch = clips.slice(i, i + 2);
    const counts = await Promise.all(batch.map((c) => turnsOf(s, 'semantic_vad', c.samples)));
    counts.forEach((n, k) => (turns[i + k] = n));
  }
  return { turns, split: clips.flatMap((c, i) => (turns[i] === 1 ? [] : [`${c.words} (${turns[i]} turns)`])) };
}
