// @test-tier own-process: counts the threads of its own process (another file's engines would be among them)
import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { loadConfig } from '../../src/config.js';
import { postJson } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** Threads of this process now (the engines' worker threads among them). */
const threads = (): number => readdirSync('/proc/self/task').length;

/**
 * SVC_SPEECH_WARM_UP: the default (`blocking`) loads the embedded speech engines' threads before the
 * server listens; `lazy` (what the other tests' servers use, to start faster) loads one engine's on
 * the first request that needs it. Counted as the threads a running server has more than the same
 * process after it closed (the engines' threads end with it; libuv's pool stays either way).
 */
describe('speech engines warm-up (SVC_SPEECH_WARM_UP)', function () {
  this.timeout(60_000);
  // The live avatar warms a render thread of its own in the background: not counted here.
  const env = { SVC_LIVE_AVATAR_ENABLED: 'false' };
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  async function engineThreads(start: () => Promise<TestServer>, whileRunning: (t: TestServer) => Promise<void> = async () => undefined) {
    t = await start();
    await whileRunning(t);
    const running = threads();
    await t.close();
    t = undefined;
    return running - threads();
  }

  it('is blocking by default', () => {
    expect(loadConfig({}).settings.SVC_SPEECH_WARM_UP).to.equal('blocking');
  });

  it('blocking: Flite (2 threads) and espeak-ng (1) are running when the server listens; lazy: none', async () => {
    // A first server of this process loads what every server shares (modules, libuv's pool, espeak's voice list).
    await engineThreads(() => startTestServer({ env }));
    const lazy = await engineThreads(() => startTestServer({ env }));
    const blocking = await engineThreads(() => startTestServer({ env: { ...env, SVC_SPEECH_WARM_UP: 'blocking' } }));
    expect(lazy, 'engine threads of a lazy server').to.equal(0);
    expect(blocking, 'engine threads of a blocking server').to.be.at.least(3);
  });

  it('lazy: the first speech request loads the engine it needs and is answered', async () => {
    let status = 0;
    const loaded = await engineThreads(
      () => startTestServer({ env }),
      async (server) => {
        const res = await postJson(`${server.baseUrl}/v1/audio/speech`, { input: 'Hello.', response_format: 'pcm' }, server.apiKey);
        status = res.status;
        await res.arrayBuffer();
      },
    );
    expect(status).to.equal(200);
    expect(loaded, 'threads the first request started').to.be.at.least(1);
  });
});
