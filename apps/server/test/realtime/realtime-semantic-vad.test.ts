// @test-tier light: speaks recorded sentences at real-time pace and mostly waits
import { expect } from 'chai';
import { openSession, sleep, violations, type RealtimeClient } from '../helpers/realtime-client.js';
import { startRealtimeServer, type RealtimeTestServer } from '../helpers/realtime-server.js';
import { RATE, recording } from '../helpers/recorded-speech.js';
import { PAUSED_AT } from '../helpers/paused-sentences.js';
import { speakAtRealTimePace } from '../helpers/spoken-audio.js';

/**
 * Mid-sentence pauses in real recorded speech: pocketsphinx-testdata's readers (installed by
 * scripts/setup-system.sh), each sentence with one pause of 600 ms stretched in at a natural
 * clause or phrase boundary (the word ends timed with `pocketsphinx_continuous -time yes`). A
 * person pausing there has not finished: semantic_vad must keep each sentence one turn, where
 * server_vad with its 500 ms silence rule splits it.
 */
const PAUSE_MS = 600;
/** Sentences that must stay one turn (see the test). */
const KEPT_AT_LEAST = 19;
/** Silence after the sentence: longer than the longest semantic_vad wait (an unfinished phrase). */
const AFTER_MS = 2600;
/** How long a loaded machine may take beyond that to report the turn. */
const SETTLE_MS = 10_000;

function withPause(samples: Int16Array, atSeconds: number, pauseMs: number): Int16Array {
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

/** How many turns the server made of the clip (committed user turns). */
async function turnsOf(s: RealtimeTestServer, type: 'server_vad' | 'semantic_vad', clip: Int16Array): Promise<number> {
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
const committed = (client: RealtimeClient) => client.events.filter((e) => e.type === 'input_audio_buffer.committed').length;

describe('realtime e2e: semantic_vad keeps a sentence with a pause in it one turn (recorded speech)', function () {
  this.timeout(300_000);
  afterEach(() => expect(violations.splice(0)).to.deep.equal([]));
  let s: RealtimeTestServer;
  before(async () => (s = await startRealtimeServer()));
  after(async () => s?.close());

  // Issue 34's target: 19 of 20. With a fall judged at 0.92 of the speaker's pitch, runs kept 18-20:
  // the reader's pitch dips at clauses that read as finished ("a more amiable woman", "rather cold
  // hearted"); since a fall needs 0.85 (0.83 once the tracker stopped reading an octave down), runs kept 20. The old rule (finished words end the
  // turn at 500 ms) kept almost none of them.
  it(`keeps at least ${KEPT_AT_LEAST} of ${PAUSED_AT.length} sentences with a ${PAUSE_MS} ms pause at a clause boundary one turn`, async () => {
    const clips = PAUSED_AT.map((p) => ({ ...p, samples: withPause(recording(p.file), p.seconds, PAUSE_MS) }));
    const turns: number[] = new Array(clips.length).fill(0);
    // Two callers at a time: the clips play at real-time pace.
    for (let i = 0; i < clips.length; i += 2) {
      const batch = clips.slice(i, i + 2);
      const counts = await Promise.all(batch.map((c) => turnsOf(s, 'semantic_vad', c.samples)));
      counts.forEach((n, k) => (turns[i + k] = n));
    }
    const split = clips.flatMap((c, i) => (turns[i] === 1 ? [] : [`${c.words} (${turns[i]} turns)`]));
    console.log(
      `      semantic_vad: ${clips.length - split.length} of ${clips.length} kept as one turn${split.length ? `; split: ${split.join('; ')}` : ''}`,
    );
    expect(
      turns.every((n) => n >= 1),
      'every sentence makes a turn',
    ).to.equal(true);
    expect(clips.length - split.length).to.be.at.least(KEPT_AT_LEAST);
  });

  it('server_vad (its 500 ms rule, unchanged) ends the turn at such a pause', async () => {
    const p = PAUSED_AT[10]!;
    expect(await turnsOf(s, 'server_vad', withPause(recording(p.file), p.seconds, PAUSE_MS))).to.equal(2);
  });
});
