import { expect } from 'chai';
import type { Logger } from '@svc/core';
import { sleep, startGateway, TestClient, type GatewayHarness } from './gateway-harness.js';

/** A logger that keeps every entry (with its child bindings). */
function recordingLogger(
  entries: { level: string; msg: string; fields: Record<string, unknown> }[],
  bound: Record<string, unknown> = {},
): Logger {
  const at =
    (level: string) =>
    (fields: Record<string, unknown>, msg = '') =>
      void entries.push({ level, msg, fields: { ...bound, ...fields } });
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (bindings) => recordingLogger(entries, { ...bound, ...bindings }),
  };
}

describe('realtime gateway: one log line per socket (docs/deployment.md, Logs)', () => {
  let h: GatewayHarness;
  const entries: { level: string; msg: string; fields: Record<string, unknown> }[] = [];
  before(async () => {
    h = await startGateway({}, undefined, undefined, undefined, recordingLogger(entries));
  });
  after(() => h.close());
  beforeEach(() => (entries.length = 0));

  it('logs a session at its end at info: its key, the close code, who ended it and how long it lasted', async () => {
    const c = TestClient.connect(h.url, { apiKey: 'svc-key-a' });
    c.send({ type: 'session.update', session: { model: 'svc-realtime', output_modalities: ['text'] } });
    await c.next('session.created');
    c.ws.close(1000);
    await c.closed;
    await sleep(50);
    const closed = entries.filter((e) => e.msg === 'realtime session closed');
    expect(closed, JSON.stringify(entries)).to.have.length(1);
    expect(closed[0]!.level).to.equal('info');
    expect(closed[0]!.fields).to.include({ apiKeyId: 'key_a', code: 1000, endedBy: 'client_closed' });
    expect(closed[0]!.fields.ms).to.be.a('number');
  });

  it('logs a refused connection (an invalid key) at info with its close code, and never the key', async () => {
    const c = TestClient.connect(`${h.url}?model=svc-realtime`, { apiKey: 'svc-not-a-key' });
    expect((await c.closed).code).to.equal(3000);
    await sleep(50);
    const refused = entries.filter((e) => e.msg === 'realtime connection refused');
    expect(refused, JSON.stringify(entries)).to.have.length(1);
    expect(refused[0]!.level).to.equal('info');
    expect(refused[0]!.fields).to.include({ refused: 'invalid_credentials', code: 3000 });
    expect(JSON.stringify(entries)).not.to.contain('svc-not-a-key');
  });
});
