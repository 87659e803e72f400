import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import OpenAI from 'openai';
import { AddressPolicy } from '@svc/adapters-media';
import { CallWebhook, signWebhook } from '@svc/adapters-sip';
import type { Principal } from '@svc/core';
import { loadConfig } from '../../src/config.js';
import { startSipServer } from '../helpers/sip-server.js';
import { duringCall, hasBaresip, placeCall } from '../helpers/baresip.js';

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

function webhook(
  url: string,
  allowed: string[] = ['127.0.0.1'],
  attemptTimeoutMs = 2000,
  resolve?: (hostname: string) => Promise<string[]>,
): CallWebhook {
  return new CallWebhook({
    url,
    secret: SECRET,
    addressPolicy: new AddressPolicy(allowed),
    attemptTimeoutMs,
    maxAttempts: 3,
    firstRetryMs: 50,
    ...(resolve ? { resolve } : {}),
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
      await webhook(r.url).announce(CALL, new AbortController().signal);
      expect(r.deliveries).to.have.length(1);
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
      await webhook(r.url, ['127.0.0.1'], 300).announce(CALL, new AbortController().signal);
      expect(r.deliveries, 'resolved once the third attempt was taken').to.have.length(3);
      const ids = new Set(r.deliveries.map((d) => d.headers['webhook-id']));
      expect(ids.size, 'one webhook-id for every attempt').to.equal(1);
      for (const d of r.deliveries) await openai.webhooks.verifySignature(d.body, d.headers as Record<string, string>, SECRET);
      await new Promise((res) => setTimeout(res, 300));
      expect(r.deliveries).to.have.length(3);
    } finally {
      await r.close();
    }
  });

  it('stops retrying when the call stops ringing, and then reports no failure (the call went for another reason)', async () => {
    const r = await receiver((_n, res) => res.writeHead(503).end());
    try {
      const gone = new AbortController();
      const announced = webhook(r.url).announce(CALL, gone.signal);
      await until(() => r.deliveries.length === 1);
      gone.abort();
      expect(
        await announced.then(
          () => 'resolved',
          (err: unknown) => err,
        ),
      ).to.equal('resolved');
      await new Promise((res) => setTimeout(res, 400));
      expect(r.deliveries).to.have.length(1);
    } finally {
      await r.close();
    }
  });

  it('fails the announcement, saying why, only once the last attempt failed: the SIP server then refuses the call', async () => {
    const r = await receiver((_n, res) => res.writeHead(500).end());
    try {
      const settled: number[] = [];
      const failure = await webhook(r.url)
        .announce(CALL, new AbortController().signal)
        .then(
          () => null,
          (err: Error) => (settled.push(r.deliveries.length), err),
        );
      expect(failure).to.be.instanceOf(Error);
      expect(failure!.message).to.equal('not delivered in 3 attempts; the last: the receiver answered HTTP 500');
      expect(settled, 'the failure comes after the third attempt, not before').to.deep.equal([3]);
      await new Promise((res) => setTimeout(res, 300));
      expect(r.deliveries, 'and nothing is posted after it').to.have.length(3);
    } finally {
      await r.close();
    }
  });

  it('never posts to a private address that is not allowlisted, and fails at once instead of asking the same rule again', async () => {
    const r = await receiver((_n, res) => res.writeHead(204).end());
    try {
      const failure = await webhook(r.url, [])
        .announce(CALL, new AbortController().signal)
        .then(
          () => null,
          (err: Error) => err,
        );
      expect(failure?.message).to.match(/^the webhook address was refused: '127\.0\.0\.1' resolves to .*SVC_SIP_WEBHOOK_ALLOWED_HOSTS$/);
      expect(r.deliveries, 'loopback is refused without SVC_SIP_WEBHOOK_ALLOWED_HOSTS').to.have.length(0);

      // a host name that resolves to loopback: looked up once, not once per attempt
      const port = new URL(r.url).port;
      let lookups = 0;
      const named = await webhook(`http://hooks.example.test:${port}/hook`, [], 2000, async () => (lookups++, ['127.0.0.1']))
        .announce(CALL, new AbortController().signal)
        .then(
          () => null,
          (err: Error) => err,
        );
      expect(named?.message).to.match(/^the webhook address was refused: 'hooks\.example\.test' resolves to /);
      expect(lookups).to.equal(1);
      expect(r.deliveries).to.have.length(0);
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

describe('a call whose webhook cannot be delivered (the real server, baresip calling)', function () {
  this.timeout(120_000);
  const RING_TIMEOUT_MS = 60_000;

  it('is refused with 480 and a Warning right after the last failed attempt, not when the ring timeout ends it', async function () {
    if (!hasBaresip()) {
      console.log('      skipped: baresip is not installed (bash scripts/setup-test-sip.sh installs it)');
      this.skip();
    }
    const r = await receiver((_n, res) => res.writeHead(500).end());
    const started = await startSipServer({
      SVC_SIP_WEBHOOK_URL: r.url,
      SVC_SIP_WEBHOOK_SECRET: SECRET,
      SVC_SIP_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      SVC_SIP_WEBHOOK_ATTEMPTS: '2',
      SVC_SIP_RING_TIMEOUT_MS: String(RING_TIMEOUT_MS),
    });
    const dialledAt = performance.now();
    const phone = await placeCall({
      host: '127.0.0.1',
      port: started.t.server.sip!.server.address.port,
      microphone: new Int16Array(8000 * 5),
    });
    try {
      await duringCall(phone, async () => {
        await phone.printed(/SIP\/2\.0 180 Ringing/, 15_000);
        // half the ring timeout at most: a call left to ring out would be refused only at the timeout
        await phone.printed(/SIP\/2\.0 480 Temporarily Unavailable/, RING_TIMEOUT_MS / 2);
        const seenAtRefusal = r.deliveries.length;
        const elapsed = performance.now() - dialledAt;
        expect(seenAtRefusal, 'refused after the second (last) attempt, not before').to.equal(2);
        expect(phone.output()).to.match(/Warning: 399 svc-realtime "the application could not be told of the call: its webhook failed"/);
        expect(elapsed / RING_TIMEOUT_MS, 'refused long before the ring timeout').to.be.below(0.25);
        expect(started.t.server.sip!.server.activeCalls()).to.equal(0);
        // each attempt was the one signed event (the receiver could have dropped the duplicate by its webhook-id)
        expect(new Set(r.deliveries.map((d) => d.headers['webhook-id'])).size).to.equal(1);
      });
    } finally {
      await started.t.close();
      rmSync(started.dataDir, { recursive: true, force: true });
      await r.close();
    }
  });
});
