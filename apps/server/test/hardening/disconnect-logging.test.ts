import { expect } from 'chai';
import { SHARED_TOKENS } from '@svc/core';
import { recordingLogger, type LogEntry as Entry } from '@svc/adapters-testing';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { sleep } from '../helpers/http.js';

/** Issue 7, "also seen": a client that disconnects mid-stream is normal, logged at info without a stack. */
describe('hardening: client disconnects are not errors in the log (real server)', function () {
  this.timeout(60_000);
  const entries: Entry[] = [];
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ overrides: new Map<symbol, unknown>([[SHARED_TOKENS.Logger, recordingLogger(entries)]]) });
  });
  after(async () => t?.close());

  it('20 aborted speech requests (before and during the stream) leave no error or warn entry and no stack', async () => {
    const long = 'This is a fairly long sentence that keeps the engine busy for a while. '.repeat(40);
    for (let i = 0; i < 20; i++) {
      const abort = new AbortController();
      const res = fetch(`${t.baseUrl}/v1/audio/speech`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${t.apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ input: long, response_format: i % 2 ? 'pcm' : 'mp3', stream: i % 2 === 1 }),
        signal: abort.signal,
      });
      if (i % 4 < 2) {
        setTimeout(() => abort.abort(), 5 + i); // before the first audio
        await res.catch(() => undefined);
      } else {
        const r = await res; // during the stream
        const reader = r.body!.getReader();
        await reader.read();
        abort.abort();
        await reader.read().catch(() => undefined);
      }
    }
    await sleep(1500);
    const bad = entries.filter((e) => e.level === 'error' || e.level === 'warn');
    expect(bad.map((e) => `${e.level} ${e.msg} ${JSON.stringify(e.obj).slice(0, 200)}`)).to.deep.equal([]);
    expect(JSON.stringify(entries)).to.not.include('    at ');
    expect(entries.some((e) => e.level === 'info' && e.obj.aborted === true)).to.equal(true);
  });
});

/**
 * Issue 17, defect 8: normal events are not warnings. A client leaving /v1/videos/stream is info
 * (the stored video completes anyway); a `response.create` the conversation has no room for is a
 * refused request (info, with its code), not "language model failed".
 */
describe('hardening: refusals and departures are info, not warnings (real server, through the logger)', function () {
  this.timeout(120_000);
  const entries: Entry[] = [];
  let t: TestServer;
  before(async () => {
    t = await startTestServer({
      env: { SVC_REALTIME_MAX_CONVERSATION_ITEMS: '2' },
      overrides: new Map<symbol, unknown>([[SHARED_TOKENS.Logger, recordingLogger(entries)]]),
    });
  });
  after(async () => t?.close());
  beforeEach(() => void entries.splice(0));

  const warnings = () =>
    entries
      .filter((e) => e.level === 'error' || e.level === 'warn')
      .map((e) => `${e.level} ${e.msg} ${JSON.stringify(e.obj).slice(0, 300)}`);

  it('a client that leaves /v1/videos/stream after the first bytes: info, no warning, no ERR_STREAM_PREMATURE_CLOSE; the video still completes', async () => {
    const { dataUri, samplePhoto, pollVideo } = await import('../video/video-helpers.js');
    const abort = new AbortController();
    const res = await fetch(`${t.baseUrl}/v1/videos/stream`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        ref_image: dataUri(samplePhoto(1), 'image/jpeg'),
        input_tts: { input: 'Hello there, this is a live video that the client will not watch to the end.' },
      }),
      signal: abort.signal,
    });
    expect(res.status).to.equal(200);
    const id = res.headers.get('x-video-id')!;
    const reader = res.body!.getReader();
    await reader.read();
    abort.abort();
    await reader.read().catch(() => undefined);
    expect((await pollVideo(t.baseUrl, t.apiKey, id)).at(-1)).to.include({ status: 'completed' });
    await sleep(300);
    expect(warnings()).to.deep.equal([]);
    expect(JSON.stringify(entries)).to.not.include('ERR_STREAM_PREMATURE_CLOSE');
    expect(entries.some((e) => e.level === 'info' && e.obj.video === id && /client left/.test(e.msg ?? ''))).to.equal(
      true,
      'the departure is logged at info',
    );
  });

  it('response.create on a full conversation: the client gets conversation_full, the log says refused at info, never "language model failed"', async () => {
    const { openSession, userText } = await import('../helpers/realtime-client.js');
    const { client } = await openSession(t.wsUrl, t.apiKey, { output_modalities: ['text'] });
    for (let i = 0; i < 2; i++) client.send({ type: 'conversation.item.create', item: userText(`item ${i}`, `item_${i}`) });
    client.send({ type: 'response.create' });
    let error: any = null;
    for (let i = 0; i < 20 && !error; i++) {
      const e = await client.next(15_000);
      if (e.type === 'error') error = e;
    }
    expect(error?.error?.code).to.equal('conversation_full');
    await client.close();
    await sleep(200);
    expect(warnings()).to.deep.equal([]);
    expect(entries.some((e) => /language model failed/.test(e.msg ?? ''))).to.equal(false);
    expect(entries.some((e) => e.level === 'info' && e.obj.code === 'conversation_full')).to.equal(
      true,
      'the refusal is logged at info with its code',
    );
  });
});
