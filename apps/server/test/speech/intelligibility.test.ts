import { expect } from 'chai';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { requireRecognizer, speechRoundTrip } from '../helpers/pocketsphinx.js';

/**
 * Round trip: our default voice speaks five everyday sentences, Debian's pocketsphinx (installed by
 * scripts/setup-system.sh) transcribes them, and the word error rate must stay under 15 %.
 */
describe('intelligibility of the default voice (pocketsphinx round trip)', function () {
  this.timeout(180_000);
  let t: TestServer;
  before(async () => {
    requireRecognizer();
    t = await startTestServer();
  });
  after(async () => t?.close());

  it('word error rate under 15 % over 5 sentences', async () => {
    const { wer, heard } = await speechRoundTrip(t);
    console.log(`      WER ${(wer * 100).toFixed(1)} %: ${heard}`);
    expect(wer).to.be.lessThan(0.15);
  });
});
