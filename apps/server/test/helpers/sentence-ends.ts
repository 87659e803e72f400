import { join } from 'node:path';
import { alignedSpeechEndMs } from './forced-alignment.js';
import { LIBRIVOX_DIR, librivoxSentences } from './librivox.js';
import { openSession, sleep, type RealtimeClient } from './realtime-client.js';
import type { RealtimeTestServer } from './realtime-server.js';
import { RATE } from './recorded-speech.js';
import { edgeSilenceMs, speakAtRealTimePace } from './spoken-audio.js';

/**
 * Whether semantic_vad ends a turn at a read sentence's end: each of the five LibriVox sentences
 * (pocketsphinx-testdata, installed by scripts/setup-system.sh), a pause, then the next sentence.
 * Judged finished within the pause, a turn ends at the sentence's end; otherwise the next sentence
 * resumes the same turn. The count is of decisions on the input's own timeline, not of times: a
 * loaded machine judges the same audio the same way.
 */

/** Silence after the clip: longer than the longest semantic_vad wait (an unfinished phrase). */
const AFTER_MS = 2600;
/** How long a loaded machine may take beyond that to report the turns. */
const SETTLE_MS = 10_000;
/**
 * How far before the end of the last word the turn's end may be dated: the detector does not hear a
 * creaky last word ("... for [them]", 222 ms early).
 */
const DETECTOR_SLACK_MS = 400;

/** The speech of a recording without its leading and trailing silence, and where it starts in the file (ms). */
export function trimmed(samples: Int16Array): { speech: Int16Array; leadingMs: number } {
  const { leading, trailing } = edgeSilenceMs(samples, RATE);
  return {
    speech: samples.subarray(Math.round((leading / 1000) * RATE), samples.length - Math.round((trailing / 1000) * RATE)),
    leadingMs: leading,
  };
}

/** `first`, `pauseMs` of silence, then `next`. */
export function withPauseBetween(first: Int16Array, next: Int16Array, pauseMs: number): Int16Array {
  const gap = Math.round((pauseMs / 1000) * RATE);
  const out = new Int16Array(first.length + gap + next.length);
  out.set(first);
  out.set(next, first.length + gap);
  return out;
}

const session = {
  output_modalities: ['text'],
  audio: {
    input: {
      format: { type: 'audio/pcm', rate: 16000 },
      turn_detection: { type: 'semantic_vad' },
      transcription: { model: 'svc-stt-3.1' },
    },
  },
};
const count = (client: RealtimeClient, type: string) => client.events.filter((e) => e.type === type).length;

/**
 * Whether a turn ended at the end of the first sentence: the last `speech_stopped` of some committed
 * turn lies between the end of its last word (pocketsphinx forced to the words said, less the
 * detector's slack) and the next sentence's start, on the input's own timeline (a split elsewhere,
 * inside a sentence, does not count). The trimmed clip keeps the room noise after the last word
 * (up to a few hundred ms), so its end is not the sentence's.
 */
export async function endedAtSentenceEnd(
  s: RealtimeTestServer,
  clip: Int16Array,
  wordsEndMs: number,
  nextStartMs: number,
): Promise<boolean> {
  const { client } = await openSession(s.wsUrl, s.apiKey, session);
  try {
    await speakAtRealTimePace(client, clip);
    await speakAtRealTimePace(client, new Int16Array((AFTER_MS / 1000) * RATE));
    // A loaded machine judges behind real time: the last turn's end may still be on its way.
    const deadline = performance.now() + SETTLE_MS;
    const committed = () => count(client, 'input_audio_buffer.committed');
    while ((committed() === 0 || committed() < count(client, 'input_audio_buffer.speech_started')) && performance.now() < deadline)
      await sleep(100);
    const committedItems = new Set(client.events.filter((e) => e.type === 'input_audio_buffer.committed').map((e) => e.item_id));
    const lastStop = new Map<unknown, number>();
    for (const e of client.events) if (e.type === 'input_audio_buffer.speech_stopped') lastStop.set(e.item_id, Number(e.audio_end_ms));
    return [...lastStop].some(
      ([item, endMs]) => committedItems.has(item) && endMs >= wordsEndMs - DETECTOR_SLACK_MS && endMs <= nextStartMs,
    );
  } finally {
    await client.close();
  }
}

/** The five sentences, each followed by `pauseMs` of silence and the next one, with where its last word ends and the next starts. */
export function sentencesWithPauses(pauseMs: number) {
  const sentences = librivoxSentences();
  const speech = sentences.map((c) => trimmed(c.samples));
  return sentences.map((c, i) => ({
    ...c,
    samples: withPauseBetween(speech[i]!.speech, speech[(i + 1) % speech.length]!.speech, pauseMs),
    wordsEndMs: alignedSpeechEndMs(join(LIBRIVOX_DIR, `${c.id}.wav`), c.words) - speech[i]!.leadingMs,
    nextStartMs: (speech[i]!.speech.length / RATE) * 1000 + pauseMs,
  }));
}

/** How many of `clips` ended a turn at their sentence's end (two callers at a time: the clips play at real-time pace), and the ends of those that did not. */
export async function sentenceEndsEnded(
  s: RealtimeTestServer,
  clips: ReturnType<typeof sentencesWithPauses>,
): Promise<{ ended: number; kept: string[] }> {
  const ended: boolean[] = [];
  for (let i = 0; i < clips.length; i += 2) {
    const batch = clips.slice(i, i + 2);
    ended.push(...(await Promise.all(batch.map((c) => endedAtSentenceEnd(s, c.samples, c.wordsEndMs, c.nextStartMs)))));
  }
  const kept = clips.flatMap((c, i) => (ended[i] ? [] : [`"... ${c.words.split(' ').slice(-4).join(' ')}"`]));
  return { ended: clips.length - kept.length, kept };
}
