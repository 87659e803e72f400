import { expect } from 'chai';
import { RealtimeSessionEngine, silentLogger, type Clock, type RealtimeServerEvent } from '@svc/core';
import { OpenAiCompatibleLanguageModel } from '../src/index.js';
import { chunk, sleep, sseHeaders, startSseServer } from './sse-test-server.js';

const clock: Clock = {
  now: () => Date.now(),
  setTimer: (ms, fn) => {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};
let n = 0;
const ids = { id: (p: string) => `${p}${++n}`, secret: (p: string) => `${p}s${++n}` };

async function until(events: RealtimeServerEvent[], type: string, timeoutMs = 3000) {
  const start = Date.now();
  while (!events.some((e) => e.type === type)) {
    if (Date.now() - start > timeoutMs) throw new Error(`no ${type} in ${events.map((e) => e.type).join(', ')}`);
    await sleep(5);
  }
}

describe('realtime engine with the OpenAI-compatible model (local SSE server)', () => {
  it('an upstream failure mid-stream becomes an error event and the response still ends with response.done', async () => {
    const server = await startSseServer(async (_req, res) => {
      sseHeaders(res);
      res.write(chunk({ content: 'Half an ' }));
      await sleep(20);
      res.socket?.destroy();
    });
    const events: RealtimeServerEvent[] = [];
    let closed: string | null = null;
    const engine = new RealtimeSessionEngine(
      {
        clock,
        ids,
        logger: silentLogger,
        languageModel: new OpenAiCompatibleLanguageModel({ baseUrl: server.baseUrl, model: 'm' }),
        voices: { exists: async () => true },
        quota: { consume: async () => ({ allowed: true }) },
      },
      { principal: { apiKeyId: 'k', name: 'k' }, urlModel: 'svc-realtime', maxDurationSec: 60 },
      { send: (e) => events.push(e), close: (ending) => (closed = ending) },
    );
    try {
      await engine.handle({ type: 'session.update', session: { output_modalities: ['text'], audio: { input: { turn_detection: null } } } });
      await engine.handle({
        type: 'conversation.item.create',
        item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
      });
      await engine.handle({ type: 'response.create' });
      await until(events, 'response.done');
      const types = events.map((e) => e.type);
      expect(types.slice(types.indexOf('response.created'))).to.deep.equal([
        'response.created',
        'response.output_item.added',
        'conversation.item.added',
        'response.content_part.added',
        'response.output_text.delta',
        'error',
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.done',
      ]);
      const error = events.find((e) => e.type === 'error')!.error as Record<string, unknown>;
      expect(error.type).to.equal('server_error');
      expect(error.code).to.equal('engine_error');
      expect((events[events.length - 1]!.response as any).output[0].content[0].text).to.equal('Half an ');
      expect(closed).to.equal(null);
    } finally {
      engine.transportClosed();
      await server.close();
    }
  });
});
