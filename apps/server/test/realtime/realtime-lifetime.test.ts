import { expect } from 'chai';
import { ManualClock } from '../helpers/manual-clock.js';
import { openSession, pcmBase64, sleep, userText, takeViolations } from '../helpers/realtime-client.js';
import { startRealtimeServer, type RealtimeTestServer } from '../helpers/realtime-server.js';

const strip = ({ event_id: _e, ...rest }: Record<string, any>) => rest;

describe('realtime e2e: session end (idle timeout, max duration, quota)', function () {
  this.timeout(30_000);
  afterEach(() => expect(takeViolations()).to.deep.equal([]));

  describe('with a manual clock', () => {
    let s: RealtimeTestServer;
    const clock = new ManualClock();
    before(async () => {
      s = await startRealtimeServer({ clock, env: { SVC_REALTIME_MAX_DURATION_SEC: '900' } });
    });
    after(async () => s?.close());

    it('1000 after 5 minutes without user speech, preceded by session.idle_timeout {seconds_idle}', async () => {
      const { client } = await openSession(s.wsUrl, s.apiKey);
      clock.advance(299_000);
      await client.expectQuiet(100);
      clock.advance(1_000);
      expect(strip(await client.next())).to.deep.equal({ type: 'session.idle_timeout', seconds_idle: 300 });
      const closed = await client.closed;
      expect(closed.code).to.equal(1000);
      expect(closed.reason).to.equal('session idle timeout');
    });

    it('user turns (text messages, committed audio) restart the idle countdown', async () => {
      const { client } = await openSession(s.wsUrl, s.apiKey);
      clock.advance(200_000);
      client.send({ type: 'conversation.item.create', item: userText('still here') });
      await client.next();
      clock.advance(200_000);
      client.send({ type: 'input_audio_buffer.append', audio: pcmBase64(200) });
      client.send({ type: 'input_audio_buffer.commit' });
      await client.take(2);
      clock.advance(299_000);
      await client.expectQuiet(100);
      clock.advance(1_000);
      expect((await client.next()).type).to.equal('session.idle_timeout');
      expect((await client.closed).code).to.equal(1000);
    });

    it('1000 at the wall-clock cap, preceded by session.max_duration_reached {max_duration_sec}', async () => {
      const { client, created } = await openSession(s.wsUrl, s.apiKey);
      expect(created.session.expires_at).to.equal(Math.floor(clock.now() / 1000) + 900);
      for (let i = 0; i < 3; i++) {
        clock.advance(299_000);
        client.send({ type: 'conversation.item.create', item: userText(`turn ${i}`) });
        await client.next();
      }
      clock.advance(3_000);
      expect(strip(await client.next())).to.deep.equal({ type: 'session.max_duration_reached', max_duration_sec: 900 });
      const closed = await client.closed;
      expect(closed.code).to.equal(1000);
      expect(closed.reason).to.equal('max session duration reached');
    });
  });

  describe('with a small real-time cap', () => {
    let s: RealtimeTestServer;
    before(async () => {
      s = await startRealtimeServer({ env: { SVC_REALTIME_MAX_DURATION_SEC: '1' } });
    });
    after(async () => s?.close());

    it('ends a session after SVC_REALTIME_MAX_DURATION_SEC of wall-clock time', async () => {
      const { client } = await openSession(s.wsUrl, s.apiKey);
      const started = Date.now();
      const event = await client.next(3000);
      expect(strip(event)).to.deep.equal({ type: 'session.max_duration_reached', max_duration_sec: 1 });
      expect((await client.closed).code).to.equal(1000);
      expect(Date.now() - started).to.be.below(2500);
    });
  });

  describe('with a quota budget (SVC_REALTIME_QUOTA)', () => {
    let s: RealtimeTestServer;
    before(async () => {
      s = await startRealtimeServer({ env: { SVC_REALTIME_QUOTA: '*=2' } });
    });
    after(async () => s?.close());

    it('4429 after an insufficient_quota error once the key budget refuses a response', async () => {
      const { client } = await openSession(s.wsUrl, s.apiKey);
      for (let i = 0; i < 2; i++) {
        client.send({ type: 'response.create' });
        const { event } = await client.until('response.done');
        expect(event.response.status).to.equal('completed');
      }
      client.send({ type: 'response.create' });
      const error = await client.next();
      expect(error.type).to.equal('error');
      expect(error.error).to.deep.include({ type: 'insufficient_quota', code: 'insufficient_quota' });
      expect(error.error.message).to.contain('Quota exhausted');
      const closed = await client.closed;
      expect(closed.code).to.equal(4429);
      await sleep(20);
      // The budget belongs to the key: another key still works.
      const other = await openSession(s.wsUrl, await s.createApiKey('fresh'));
      other.client.send({ type: 'response.create' });
      expect((await other.client.until('response.done')).event.response.status).to.equal('completed');
      await other.client.close();
    });
  });
});
