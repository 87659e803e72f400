import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import OpenAI from 'openai';
import { AddressPolicy } from '@svc/adapters-media';
import { CallWebhook, signWebhook } from '@svc/adapters-sip';
import type { Principal } from '@svc/core';
import { loadConfig } from '../../src/config.js';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const CALL = {
  callId: 'rtc_0123456789abcdef',
  principal: { apiKeyId: 'key_phone', name: 'phone' } as Principal,
  sipHeaders: [
    { name: 'From', value: '<sip:+14155550123@pbx.example.com>;tag=1' },
    { name: 'To', value: '<sip:svc@127.0.0.1>' },
  ],
};
const openai = new OpenAI({ apiKey: 'unused' });

/** An HTTP receiver on loopback whose answer to each delivery the test decides. */
async function receiver(answer: (n: number, res: ServerResponse) => void): Promise<{
  url: string;
  deliveries: Array<{ body: string; headers: IncomingHttpHeaders }>;
  close(): Promise<void>;
}> {
  const deliveries: Array<{ body: string; headers: IncomingHttpHeaders }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      deliveries.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      answer(deliveries.length, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    deliveries,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

function webhook(url: string, allowed: string[] = ['127.0.0.1'], attemptTimeoutMs = 2000): CallWebhook {
  return new CallWebhook({
    url,
    secret: SECRET,
    addressPolicy: new AddressPolicy(allowed),
    attemptTimeoutMs,
    maxAttempts: 3,
    firstRetryMs: 50,
  });
}

async function until(done: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('realtime.call.incoming webhook delivery (Standard Webhooks, verified by the openai SDK)', function () {
  this.timeout(20_000);

  it('signs as the openai SDK verifies: its webhooks.unwrap accepts the delivery and reads OpenAI’s event shape', async () => {
    const r = await receiver((_n, res) => res.writeHead(204).end());
    try {
      webhook(r.url).announce(CALL, new AbortController().signal);
      await until(() => r.deliveries.length === 1);
      const { body, headers } = r.deliveries[0]!;
      expect(headers['content-type']).to.equal('application/json');
      const event = await openai.webhooks.unwrap(body, headers as Record<string, string>, SECRET);
      expect(event.type).to.equal('realtime.call.incoming');
      if (event.type !== 'realtime.call.incoming') return;
      expect(event.object).to.equal('event');
      expect(event.data).to.deep.equal({ call_id: CALL.callId, sip_headers: CALL.sipHeaders });
      expect(event.created_at).to.be.closeTo(Date.now() / 1000, 60);
      const tampered = body.replace(CALL.callId, 'rtc_someone_elses');
      expect(
        await openai.webhooks.verifySignature(tampered, headers as Record<string, string>, SECRET).catch((e: unknown) => e),
      ).to.be.instanceOf(Error);
      // the signature is the Standard Webhooks one, computed independently here
      const expected = signWebhook(SECRET, String(headers['webhook-id']), Number(headers['webhook-timestamp']), body);
      expect(headers['webhook-signature']).to.equal(expected);
    } finally {
      await r.close();
    }
  });

  it('a failed delivery (HTTP 500, then no answer in time) is retried under the same webhook-id until taken', async () => {
    const r = await receiver((n, res) => {
      if (n === 1) res.writeHead(500).end();
      else if (n === 2)
        return; // never answers: the attempt times out
      else res.writeHead(200).end();
    });
    try {
      webhook(r.url, ['127.0.0.1'], 300).announce(CALL, new AbortController().signal);
      await until(() => r.deliveries.length === 3);
      const ids = new Set(r.deliveries.map((d) => d.headers['webhook-id']));
      expect(ids.size, 'one webhook-id for every attempt').to.equal(1);
      for (const d of r.deliveries) await openai.webhooks.verifySignature(d.body, d.headers as Record<string, string>, SECRET);
      await new Promise((res) => setTimeout(res, 300));
      expect(r.deliveries).to.have.length(3);
    } finally {
      await r.close();
    }
  });

  it('stops retrying when the call stops ringing, and never posts to a private address that is not allowlisted', async () => {
    const r = await receiver((_n, res) => res.writeHead(503).end());
    try {
      const gone = new AbortController();
      webhook(r.url).announce(CALL, gone.signal);
      await until(() => r.deliveries.length === 1);
      gone.abort();
      await new Promise((res) => setTimeout(res, 400));
      expect(r.deliveries).to.have.length(1);

      webhook(r.url, []).announce(CALL, new AbortController().signal);
      await new Promise((res) => setTimeout(res, 500));
      expect(r.deliveries, 'loopback is refused without SVC_SIP_WEBHOOK_ALLOWED_HOSTS').to.have.length(1);
    } finally {
      await r.close();
    }
  });

  it('settings: the URL and its whsec_ secret go together', () => {
    expect(() => loadConfig({ SVC_SIP_WEBHOOK_SECRET: SECRET })).to.throw(/SVC_SIP_WEBHOOK_URL/);
    expect(() => loadConfig({ SVC_SIP_WEBHOOK_URL: 'https://app.example.com/hook' })).to.throw(/SVC_SIP_WEBHOOK_SECRET/);
    expect(() => loadConfig({ SVC_SIP_WEBHOOK_URL: 'https://app.example.com/hook', SVC_SIP_WEBHOOK_SECRET: 'whsec_c2hvcnQ=' })).to.throw(
      /at least 24/,
    );
    expect(() => loadConfig({ SVC_SIP_WEBHOOK_URL: 'ftp://app.example.com/hook', SVC_SIP_WEBHOOK_SECRET: SECRET })).to.throw(
      /http or https/,
    );
    expect(() => loadConfig({ SVC_SIP_WEBHOOK_URL: 'https://app.example.com/hook', SVC_SIP_WEBHOOK_SECRET: SECRET })).to.not.throw();
  });
});
