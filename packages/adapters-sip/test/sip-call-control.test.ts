import { expect } from 'chai';
import { createHash } from 'node:crypto';
import {
  InMemorySessionRegistry,
  RealtimeAdmission,
  RealtimeCallNotFoundError,
  RealtimeCallNotRingingError,
  InvalidRequestError,
  silentLogger,
  type Principal,
  type RealtimeServerEvent,
} from '@svc/core';
import { PhoneCallDirectory, SipServer, type IncomingCall, type SipMessage, type SipServerOptions } from '../src/index.js';
import { burstLimiter, FakeSession, inDialog, invite, Phone, toTagOf, until, loopbackOptions } from './helpers/udp-phone.js';

const OWNER = { apiKeyId: 'key_phone', name: 'phone' } as Principal;
const STRANGER = { apiKeyId: 'key_other', name: 'other' } as Principal;

/** A response of the phone to a request the server sent it (REFER): its Via, From, To, Call-ID and CSeq copied. */
function answer(request: SipMessage, status: number, phrase: string): string {
  const h = request.headers;
  return [
    `SIP/2.0 ${status} ${phrase}`,
    ...h.all('via').map((v) => `Via: ${v}`),
    `From: ${h.get('from')}`,
    `To: ${h.get('to')}`,
    `Call-ID: ${h.get('call-id')}`,
    `CSeq: ${h.get('cseq')}`,
    'Content-Length: 0',
    '',
    '',
  ].join('\r\n');
}

/** The transfer's progress as the phone reports it (RFC 3515): a NOTIFY in the dialog with a sipfrag body. */
function notify(phone: Phone, callId: string, toTag: string, cseq: number, sipfrag: string): string {
  return inDialog('NOTIFY', phone, callId, toTag, cseq)
    .replace(
      'Content-Length: 0',
      `Event: refer\r\nSubscription-State: active\r\nContent-Type: message/sipfrag\r\nContent-Length: ${sipfrag.length}`,
    )
    .replace(/\r\n\r\n$/, `\r\n\r\n${sipfrag}`);
}

describe('SIP call control: calls ring until the application accepts, rejects, transfers or hangs up (real sockets)', function () {
  this.timeout(20_000);
  let server: SipServer;
  let phone: Phone;
  let sessions: FakeSession[];
  let announced: IncomingCall[];
  /** Fails a call's announcement by its id, as a webhook whose every delivery failed does; until then it is pending. */
  let failAnnouncement: Map<string, (err: Error) => void>;
  /** Each announcement's signal: aborted once the call stops ringing. */
  let announcementGone: Map<string, AbortSignal>;
  let directory: PhoneCallDirectory;
  let registry: InMemorySessionRegistry;
  let ids = 0;

  async function start(options: Partial<SipServerOptions> = {}): Promise<void> {
    sessions = [];
    announced = [];
    failAnnouncement = new Map();
    announcementGone = new Map();
    registry = new InMemorySessionRegistry({ maxSessions: 4, maxSessionsPerKey: 4 });
    directory = new PhoneCallDirectory((session) => {
      if (typeof session.instructions === 'number') throw new InvalidRequestError('instructions must be a string', 'instructions');
    });
    server = await SipServer.listen(
      {
        admission: new RealtimeAdmission({
          registry,
          clock: { now: () => Date.now(), setTimer: () => () => undefined },
          logger: silentLogger,
        }),
        principal: async () => OWNER,
        createSession: () => {
          const s = new FakeSession();
          sessions.push(s);
          return s;
        },
        session: { instructions: 'the default' },
        announce: (call, gone) => {
          announced.push(call);
          announcementGone.set(call.callId, gone);
          return new Promise<void>((_delivered, failed) => failAnnouncement.set(call.callId, failed));
        },
        directory,
        rateLimiter: burstLimiter(1000),
        newCallId: () => `rtc_${++ids}`,
        logger: silentLogger,
      },
      loopbackOptions(options, 5000),
    );
    phone = await new Phone().open();
  }

  afterEach(async () => {
    phone?.close();
    await server?.close();
  });

  /** A call placed and announced: its id in the API. */
  async function ringingCall(sipCallId: string): Promise<string> {
    phone.send(invite(phone, sipCallId, undefined, ['Subject: front desk']), server.address.port);
    await phone.response(180, sipCallId);
    await until(() => announced.length > 0 && announced.at(-1)!.sipHeaders.some((h) => h.value === sipCallId));
    return announced.at(-1)!.callId;
  }

  it("the announced INVITE headers leave out the caller's digest answer (a replayable credential)", async () => {
    await start({ credentials: { username: 'pbx', password: 'a-long-random-secret' } });
    phone.send(invite(phone, 'd1'), server.address.port);
    const nonce = /nonce="([^"]+)"/.exec((await phone.response(401, 'd1')).headers.get('www-authenticate')!)![1]!;
    const md5 = (text: string) => createHash('md5').update(text).digest('hex');
    const response = md5(`${md5('pbx:svc:a-long-random-secret')}:${nonce}:${md5('INVITE:sip:svc@127.0.0.1')}`);
    const authorization = `Digest username="pbx", realm="svc", nonce="${nonce}", uri="sip:svc@127.0.0.1", response="${response}"`;
    phone.send(invite(phone, 'd2', undefined, [`Authorization: ${authorization}`, 'Subject: front desk'], 2), server.address.port);
    await phone.response(180, 'd2');
    await until(() => announced.length > 0);
    const names = announced[0]!.sipHeaders.map((h) => h.name.toLowerCase());
    expect(names).to.include.members(['call-id', 'from', 'subject']);
    expect(names).not.to.include('authorization');
    expect(JSON.stringify(announced[0]!.sipHeaders)).not.to.include(response);
  });

  it('rings (180, no 200) and is announced with its id and the INVITE headers; the owner accepts it with its configuration', async () => {
    await start();
    const callId = await ringingCall('r1');
    const call = announced[0]!;
    expect(callId).to.match(/^rtc_/);
    expect(call.principal.apiKeyId).to.equal(OWNER.apiKeyId);
    expect(call.sipHeaders).to.deep.include({ name: 'Call-ID', value: 'r1' });
    expect(call.sipHeaders).to.deep.include({ name: 'Subject', value: 'front desk' });
    expect(phone.received.some((m) => m.kind === 'response' && m.status === 200)).to.equal(false);
    expect(registry.localSessions(), 'a ringing call holds no session slot').to.equal(0);
    await directory.accept(callId, OWNER, { type: 'realtime', instructions: 'You are the front desk.' });
    const ok = await phone.response(200, 'r1');
    expect(ok.body).to.match(/^m=audio \d+ RTP\/AVP 0/m);
    expect(sessions[0]!.events[0]).to.deep.equal({
      type: 'session.update',
      session: { type: 'realtime', instructions: 'You are the front desk.' },
    });
    expect(registry.localSessions()).to.equal(1);
    let twice: unknown = null;
    await directory.accept(callId, OWNER, {}).catch((err: unknown) => (twice = err));
    expect(twice).to.be.instanceOf(RealtimeCallNotRingingError);
  });

  it("another key's call is not found, exactly as an unknown id; an invalid configuration leaves the call ringing", async () => {
    await start();
    const callId = await ringingCall('r2');
    const failures = await Promise.all([
      directory.accept(callId, STRANGER, {}).catch((e: unknown) => e),
      directory.reject(callId, STRANGER, 486).catch((e: unknown) => e),
      directory.refer(callId, STRANGER, 'sip:x@127.0.0.1').catch((e: unknown) => e),
      directory.hangup(callId, STRANGER).catch((e: unknown) => e),
      directory.hangup('rtc_unknown', OWNER).catch((e: unknown) => e),
      Promise.resolve()
        .then(() => directory.join(callId, STRANGER, { send: () => undefined, callEnded: () => undefined }))
        .catch((e: unknown) => e),
    ]);
    for (const failure of failures) expect(failure).to.be.instanceOf(RealtimeCallNotFoundError);
    const invalid = await directory.accept(callId, OWNER, { instructions: 42 }).catch((e: unknown) => e);
    expect(invalid).to.be.instanceOf(InvalidRequestError);
    expect(sessions).to.have.length(0);
    await directory.accept(callId, OWNER, {});
    await phone.response(200, 'r2');
  });

  it('reject: the caller gets the status, the call is gone', async () => {
    await start();
    const callId = await ringingCall('r3');
    await directory.reject(callId, OWNER, 486);
    const refused = await phone.response(486, 'r3');
    expect(refused.kind === 'response' && refused.reason).to.equal('Busy Here');
    expect(directory.has(callId)).to.equal(false);
    expect(sessions).to.have.length(0);
  });

  it('not accepted within the ring timeout: 480, and the id is forgotten', async () => {
    await start({ ringTimeoutMs: 1000 });
    const callId = await ringingCall('r4');
    const refused = await phone.response(480, 'r4', 5000);
    expect(refused.headers.get('warning')).to.include('not accepted within 1000 ms');
    expect(directory.has(callId)).to.equal(false);
  });

  it('nobody could be told (every delivery failed): 480 with a Warning saying why at once, not at the ring timeout; an answered call is left alone', async () => {
    const ringTimeoutMs = 20_000;
    await start({ ringTimeoutMs });
    const invitedAt = performance.now();
    const callId = await ringingCall('r9');
    const finals = (sipCallId: string) =>
      phone.received.filter((m) => m.kind === 'response' && m.status >= 300 && m.headers.get('call-id') === sipCallId);
    expect(finals('r9'), 'it rings while the announcement is under way').to.deep.equal([]);
    failAnnouncement.get(callId)!(new Error('not delivered in 4 attempts; the last: the receiver answered HTTP 500'));
    // waiting half the ring timeout at most: a call left to ring out would get its 480 only at the timeout
    const refused = await phone.response(480, 'r9', ringTimeoutMs / 2);
    expect(refused.kind === 'response' && refused.reason).to.equal('Temporarily Unavailable');
    expect(refused.headers.get('warning')).to.include('the application could not be told of the call: its webhook failed');
    expect((performance.now() - invitedAt) / ringTimeoutMs, 'refused long before the ring timeout').to.be.below(0.25);
    expect(finals('r9'), 'one final answer').to.have.length(1);
    expect(directory.has(callId)).to.equal(false);
    expect(sessions).to.have.length(0);

    // The application took a delivery the sender counted as failed (its answer came too late) and accepted the call.
    const answered = await ringingCall('r10');
    expect(announcementGone.get(answered)!.aborted, 'announced while it rings').to.equal(false);
    await directory.accept(answered, OWNER, {});
    expect(announcementGone.get(answered)!.aborted, 'no more deliveries once the application answered').to.equal(true);
    const ok = await phone.response(200, 'r10');
    phone.send(inDialog('ACK', phone, 'r10', toTagOf(ok), 1), server.address.port);
    failAnnouncement.get(answered)!(new Error('not delivered in 4 attempts'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(directory.has(answered), 'the answered call goes on').to.equal(true);
    expect(server.activeCalls()).to.equal(1);
    expect(finals('r10')).to.deep.equal([]);
    expect(phone.received.some((m) => m.kind === 'request' && m.method === 'BYE')).to.equal(false);
  });

  it('hangup: a ringing call is refused (487), an answered one gets BYE and frees its slot', async () => {
    await start();
    const ringing = await ringingCall('r5');
    await directory.hangup(ringing, OWNER);
    await phone.response(487, 'r5');
    const answered = await ringingCall('r6');
    await directory.accept(answered, OWNER, {});
    const ok = await phone.response(200, 'r6');
    phone.send(inDialog('ACK', phone, 'r6', toTagOf(ok), 1), server.address.port);
    await directory.hangup(answered, OWNER);
    const bye = await phone.request('BYE');
    expect(bye.headers.get('call-id')).to.equal('r6');
    await until(() => registry.localSessions() === 0);
    expect(sessions[0]!.closed).to.equal(true);
  });

  it('refer: REFER with Refer-To goes to the caller; a NOTIFY of 200 from the transfer ends this side (BYE); a refused REFER leaves the call', async () => {
    await start();
    const callId = await ringingCall('r7');
    let early: unknown = null;
    await directory.refer(callId, OWNER, 'sip:agent@127.0.0.1').catch((e: unknown) => (early = e));
    expect(early, 'a ringing call cannot be transferred').to.be.instanceOf(InvalidRequestError);
    await directory.accept(callId, OWNER, {});
    const ok = await phone.response(200, 'r7');
    const tag = toTagOf(ok);
    phone.send(inDialog('ACK', phone, 'r7', tag, 1), server.address.port);

    // the phone refuses the first REFER: the call goes on
    const refused = directory.refer(callId, OWNER, 'tel:+14155550123').catch((e: unknown) => e);
    const first = await phone.request('REFER');
    expect(first.headers.get('refer-to')).to.equal('<tel:+14155550123>');
    phone.send(answer(first, 603, 'Decline'), server.address.port);
    expect(await refused).to.be.instanceOf(InvalidRequestError);
    expect(server.activeCalls()).to.equal(1);

    phone.received.length = 0;
    const taken = directory.refer(callId, OWNER, 'sip:agent@127.0.0.1');
    const second = await phone.request('REFER');
    expect(second.headers.get('refer-to')).to.equal('<sip:agent@127.0.0.1>');
    phone.send(answer(second, 202, 'Accepted'), server.address.port);
    await taken;
    const ended = new Promise<string>((resolve) => server.liveCalls()[0]!.onEnded((ending) => resolve(ending)));
    phone.send(notify(phone, 'r7', tag, 2, 'SIP/2.0 100 Trying'), server.address.port);
    await phone.response(200, 'r7');
    expect(server.activeCalls(), 'a 100 in the NOTIFY: the transfer is under way').to.equal(1);
    phone.send(notify(phone, 'r7', tag, 3, 'SIP/2.0 200 OK'), server.address.port);
    expect(await ended).to.equal('transferred');
    await phone.request('BYE');
    expect(directory.has(callId)).to.equal(false);
  });

  it('join: the joiner hears the session events and reaches the session; it leaves, or hears the call end', async () => {
    await start();
    const callId = await ringingCall('r8');
    expect(() => directory.join(callId, OWNER, { send: () => undefined, callEnded: () => undefined })).to.throw(RealtimeCallNotFoundError);
    await directory.accept(callId, OWNER, {});
    await phone.response(200, 'r8');
    const heard: RealtimeServerEvent[] = [];
    let endedWith: string | null = null;
    const joined = directory.join(callId, OWNER, { send: (e) => heard.push(e), callEnded: (reason) => (endedWith = reason) });
    const call = server.liveCalls()[0]!;
    call.send({ type: 'input_audio_buffer.speech_started', event_id: 'e1' } as RealtimeServerEvent);
    await joined.handle({ type: 'response.create' });
    expect(heard.map((e) => e.type)).to.deep.equal(['input_audio_buffer.speech_started']);
    expect(sessions[0]!.events.at(-1)).to.deep.equal({ type: 'response.create' });
    const second = directory.join(callId, OWNER, { send: () => undefined, callEnded: () => undefined });
    second.transportClosed();
    call.send({ type: 'response.done', event_id: 'e2' } as RealtimeServerEvent);
    expect(heard).to.have.length(2);
    await directory.hangup(callId, OWNER);
    expect(endedWith).to.be.a('string');
    expect(server.activeCalls()).to.equal(0);
  });
});
