// @test-tier light: speaks recorded sentences at real-time pace and mostly waits
import { expect } from 'chai';
import { takeViolations } from '../helpers/realtime-client.js';
import { startRealtimeServer, type RealtimeTestServer } from '../helpers/realtime-server.js';
import { recording } from '../helpers/recorded-speech.js';
import { PAUSED_AT } from '../helpers/paused-sentences.js';
import { pausedSentenceTurns, turnsOf, withPause } from '../helpers/paused-sentence-turns.js';

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

describe('realtime e2e: semantic_vad keeps a sentence with a pause in it one turn (recorded speech)', function () {
  this.timeout(300_000);
  afterEach(() => expect(takeViolations()).to.deep.equal([]));
  let s: RealtimeTestServer;
  before(async () => (s = await startRealtimeServer()));
  after(async () => s?.close());

  // Issue 34's target: 19 of 20. With a fall judged at 0.92 of the speaker's pitch, runs kept 18-20:
  // the reader's pitch dips at clauses that read as finished ("a more amiable woman", "rather cold
  // hearted"); since a fall needs 0.85 (0.83 once the tracker stopped reading an octave down), runs kept 20. The old rule (finished words end the
  // turn at 500 ms) kept almost none of them.
  it(`keeps at least ${KEPT_AT_LEAST} of ${PAUSED_AT.length} sentences with a ${PAUSE_MS} ms pause at a clause boundary one turn`, async () => {
    const { turns, split } = await pausedSentenceTurns(s, PAUSE_MS);
    console.log(
      `      semantic_vad: ${turns.length - split.length} of ${turns.length} kept as one turn${split.length ? `; split: ${split.join('; ')}` : ''}`,
    );
    expect(
      turns.every((n) => n >= 1),
      'every sentence makes a turn',
    ).to.equal(true);
    expect(turns.length - split.length).to.be.at.least(KEPT_AT_LEAST);
  });

  it('server_vad (its 500 ms rule, unchanged) ends the turn at such a pause', async () => {
    const p = PAUSED_AT[10]!;
    expect(await turnsOf(s, 'server_vad', withPause(recording(p.file), p.seconds, PAUSE_MS))).to.equal(2);
  });
});
