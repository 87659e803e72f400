import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { InMemorySessionRegistry, RealtimeAdmission, silentLogger, type Principal } from '@svc/core';
import { digestHa1, SipServer, type SipAccount, type SipAccounts, type SipServerOptions } from '../src/index.js';
import { burstLimiter, FakeSession, invite, offer, Phone, loopbackOptions } from './helpers/udp-phone.js';

const SERVER_KEY = { apiKeyId: 'key_server', name: 'server' } as Principal;
const md5 = (s: string) => createHash('md5').update(s).digest('hex');

/** The Authorization header a phone sends back for a challenge. */
function answer(challenge: string, username: string, password: string): string {
  const nonce = /nonce="([^"]+)"/.exec(challenge)![1]!;
  const response = md5(`${digestHa1(username, password)}:${nonce}:00000001:abc:auth:${md5('INVITE:sip:svc@127.0.0.1')}`);
  return `Authorization: Digest username="${username}", realm="svc", nonce="${nonce}", uri="sip:svc@127.0.0.1", response="${response}", qop=auth, nc=00000001, cnonce="abc"`;
}

describe('SipServer with per-key SIP accounts (real sockets, stand-in sessions)', function () {
  this.timeout(20_000);
  let server: SipServer;
  let phone: Phone;
  let started: Array<{ principal: Principal; session: FakeSession }>;

  /** Key A's user `alice` (answered at once with its own session); `failing` makes every lookup throw. */
  function accounts(stored: boolean, failing = false): SipAccounts {
    const alice: SipAccount = { principal: async () => ({ apiKeyId: 'key_a', name: 'a' }), session: { instructions: 'key a' } };
    const check = () => {
      if (failing) throw new Error('database down');
    };
    return {
      ha1: async (username) => (check(), stored && username === 'alice' ? digestHa1('alice', 'alice-password') : null),
      any: async () => (check(), stored),
      account: async (username) => (check(), stored && username === 'alice' ? alice : null),
    };
  }

  async function start(accountsOf: SipAccounts, options: Partial<SipServerOptions> = {}): Promise<void> {
    started = [];
    const registry = new InMemorySessionRegistry({ maxSessions: 4, maxSessionsPerKey: 4 });
    const admission = new RealtimeAdmission({
      registry,
      clock: { now: () => Date.now(), setTimer: () => () => undefined },
      logger: silentLogger,
    });
    server = await SipServer.listen(
      {
        admission,
        principal: async () => SERVER_KEY,
        accounts: accountsOf,
        createSession: ({ principal }) => {
          const session = new FakeSession();
          started.push({ principal, session });
          return session;
        },
        session: { instructions: 'server' },
        rateLimiter: burstLimiter(1000),
        newCallId: () => `rtc_${started.length}`,
        logger: silentLogger,
      },
      loopbackOptions(options, 1500),
    );
    phone = await new Phone().open();
  }

  afterEach(async () => {
    phone?.close();
    await server?.close();
  });

  it("a key's user is challenged and, proved, calls as that key with its session; a wrong password, an unknown user and no answer get 401", async () => {
    await start(accounts(true));
    phone.send(invite(phone, 'a1'), server.address.port);
    const challenge = (await phone.response(401, 'a1')).headers.get('www-authenticate')!;
    phone.send(invite(phone, 'a2', offer(), [answer(challenge, 'alice', 'wrong-password')], 2), server.address.port);
    await phone.response(401, 'a2');
    phone.send(invite(phone, 'a3', offer(), [answer(challenge, 'mallory', 'alice-password')], 2), server.address.port);
    await phone.response(401, 'a3');
    expect(started).to.have.length(0);
    phone.send(invite(phone, 'a4', offer(), [answer(challenge, 'alice', 'alice-password')], 2), server.address.port);
    await phone.response(200, 'a4');
    expect(started).to.have.length(1);
    expect(started[0]!.principal.apiKeyId).to.equal('key_a');
    expect(started[0]!.session.events[0]).to.deep.include({ type: 'session.update' });
    expect((started[0]!.session.events[0] as { session: unknown }).session).to.include({ instructions: 'key a' });
  });

  it("the server's own user still calls as the server's key beside the stored ones", async () => {
    await start(accounts(true), { credentials: { username: 'pbx', password: 'pbx-password' } });
    phone.send(invite(phone, 'b1'), server.address.port);
    const challenge = (await phone.response(401, 'b1')).headers.get('www-authenticate')!;
    phone.send(invite(phone, 'b2', offer(), [answer(challenge, 'pbx', 'pbx-password')], 2), server.address.port);
    await phone.response(200, 'b2');
    expect(started.map((s) => s.principal.apiKeyId)).to.deep.equal(['key_server']);
  });

  it('without stored users and server credentials nobody is challenged: calls act as the server key', async () => {
    await start(accounts(false));
    phone.send(invite(phone, 'c1'), server.address.port);
    await phone.response(200, 'c1');
    expect(started.map((s) => s.principal.apiKeyId)).to.deep.equal(['key_server']);
  });

  it('credentials that cannot be read (the store is down): 503 with Retry-After, nothing started', async () => {
    await start(accounts(true, true));
    phone.send(invite(phone, 'd1'), server.address.port);
    const refused = await phone.response(503, 'd1');
    expect(refused.headers.get('retry-after')).to.equal('5');
    expect(started).to.have.length(0);
  });
});
