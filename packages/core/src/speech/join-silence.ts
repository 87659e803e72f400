import { concatPcm } from '../shared/audio.js';

/**
 * The silence at the edges of synthesized speech. Engines pad every utterance with silence; where
 * the speech begins or ends that is only delay (a reply whose first delta is silent), and where a
 * stream's first sentence is cut after its first clause (so the first audio leaves sooner),
 * the engine ends the clause as an utterance and starts the rest as a new one, each padded with
 * silence: ~320 ms of silence at the join where the same sentence spoken whole pauses ~100 ms at the
 * comma (Flite `slt`). These trim both sides of that one join down to a comma's pause, so the cut is
 * not heard as a break.
 */

/** Samples quieter than this (about -44 dBFS) count as silence. */
const SILENCE_LEVEL = 200;
/** Silence kept on each side of the join: together about the pause of a comma inside a sentence. */
export const JOIN_SILENCE_MS = 50;
/**
 * Silence kept where speech begins or ends (engines pad an utterance with a fifth of a second or
 * more): enough that the onset and the decay below the silence level are not clipped, little enough
 * that the first delta a listener gets already carries the voice.
 */
export const EDGE_SILENCE_MS = 10;

/**
 * What to do with the silence at each end of a piece of speech: keep at most this many ms of it,
 * or null to leave it as the engine made it (a pause between two sentences is part of the speech).
 */
export interface SpeechEdges {
  leadingKeepMs: number | null;
  trailingKeepMs: number | null;
}

/** A whole utterance: the audio starts and ends with the voice. */
export const UTTERANCE_EDGES: SpeechEdges = { leadingKeepMs: EDGE_SILENCE_MS, trailingKeepMs: EDGE_SILENCE_MS };
/** A piece in the middle of longer speech: both pauses stay natural. */
export const INNER_EDGES: SpeechEdges = { leadingKeepMs: null, trailingKeepMs: null };

/**
 * The chunks with `edges` applied at `sampleRate`; `onTrimmed` learns how many samples the leading
 * trim dropped (word timings move earlier by that much).
 */
export function trimEdges(
  chunks: AsyncIterable<Int16Array>,
  edges: SpeechEdges,
  sampleRate: number,
  onTrimmed: (samples: number) => void,
): AsyncIterable<Int16Array> {
  const samples = (ms: number) => Math.round((ms * sampleRate) / 1000);
  const led = edges.leadingKeepMs === null ? chunks : trimLeadingSilence(chunks, samples(edges.leadingKeepMs), onTrimmed);
  return edges.trailingKeepMs === null ? led : trimTrailingSilence(led, samples(edges.trailingKeepMs));
}

const isLoud = (sample: number) => sample >= SILENCE_LEVEL || sample <= -SILENCE_LEVEL;

/**
 * The chunks with the silence that opens them cut down to `keepSamples`; `onTrimmed` learns how many
 * samples were dropped (the step's word timings move earlier by that much). Audio that is silent
 * throughout passes unchanged.
 */
export async function* trimLeadingSilence(
  chunks: AsyncIterable<Int16Array>,
  keepSamples: number,
  onTrimmed: (samples: number) => void,
): AsyncGenerator<Int16Array> {
  const silent: Int16Array[] = [];
  let opened = false;
  for await (const chunk of chunks) {
    if (opened) {
      yield chunk;
      continue;
    }
    const firstLoud = chunk.findIndex(isLoud);
    if (firstLoud < 0) {
      silent.push(chunk);
      continue;
    }
    opened = true;
    const head = concatPcm([...silent, chunk]);
    const silentSamples = head.length - chunk.length + firstLoud;
    const drop = Math.max(0, silentSamples - keepSamples);
    onTrimmed(drop);
    yield head.subarray(drop);
  }
  if (!opened && silent.length > 0) yield concatPcm(silent);
}

/**
 * The chunks with the silence that closes them cut down to `keepSamples`. Only silence is held back
 * (until a louder sample or the end shows whether it closes the audio), so the first sound still
 * leaves as soon as the engine gives it.
 */
export async function* trimTrailingSilence(chunks: AsyncIterable<Int16Array>, keepSamples: number): AsyncGenerator<Int16Array> {
  let held: Int16Array[] = [];
  for await (const chunk of chunks) {
    let lastLoud = chunk.length - 1;
    while (lastLoud >= 0 && !isLoud(chunk[lastLoud]!)) lastLoud--;
    if (lastLoud < 0) {
      held.push(chunk);
      continue;
    }
    const out = concatPcm([...held, chunk.subarray(0, lastLoud + 1)]);
    held = [chunk.subarray(lastLoud + 1)];
    if (out.length > 0) yield out;
  }
  const tail = concatPcm(held).subarray(0, keepSamples);
  if (tail.length > 0) yield tail;
}
