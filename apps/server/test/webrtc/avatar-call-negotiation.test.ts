// @test-tier serial: a keyframe's latency after the request, in real time
import { expect } from 'chai';
import sharp from 'sharp';
import { REALTIME_TOKENS } from '@svc/core';
import { SERVER_TOKENS } from '../../src/tokens.js';
import { WebRtcTestClient } from '../helpers/webrtc-client.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { dataUri, samplePhoto } from '../video/video-helpers.js';

const SESSION = { type: 'realtime', model: 'svc-realtime', output_modalities: ['text'], audio: { input: { turn_detection: null } } };
const FACE = { ref_image: dataUri(samplePhoto(1), 'image/jpeg'), size: '640x480' };

/** Whether an H.264 RTP payload starts a keyframe (its first NAL unit, alone or in a STAP-A, is an SPS). */
const startsKeyframe = (payload: Buffer) => ((payload[0]! & 0x1f) === 24 ? payload[3]! & 0x1f : payload[0]! & 0x1f) === 7;

/** A photo without a face: a flat grey PNG. */
const blankPng = () =>
  sharp({ create: { width: 400, height: 400, channels: 3, background: '#7a8a99' } })
    .png()
    .toBuffer();

/** The m=video section of an SDP answer. */
const videoSection = (sdp: string) => /^m=video[\s\S]*?(?=^m=|(?![\s\S]))/m.exec(sdp)?.[0] ?? '';

/**
 * The video track of avatar calls, negotiated with a werift peer in Node (the Chromium test decodes
 * it): an offer that receives video and names a face gets a sendonly H.264 m-line and H.264 RTP
 * (keyframe first: SPS, PPS, IDR); without the avatar the video m-line is answered inactive; a
 * face on a call without video, or on a server without the live avatar, is refused cleanly.
 */
describe('avatar calls: the H.264 video track in the SDP answer and on the wire', function () {
  this.timeout(120_000);
  const clients: WebRtcTestClient[] = [];
  const client = (video: boolean | 'vp8') => {
    const c = new WebRtcTestClient({ video });
    clients.push(c);
    return c;
  };
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });

  describe('with the live avatar', () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer({ env: { SVC_LOG_LEVEL: process.env.AVATAR_TEST_LOG_LEVEL ?? 'silent' } });
    });
    after(async () => t?.close());
    /** Calls this server serves and session slots it holds: a refused call adds to neither. */
    const held = () => ({
      calls: t.server.services.get(SERVER_TOKENS.RealtimeCalls)!.activeCalls(),
      slots: t.server.services.get(REALTIME_TOKENS.SessionRegistry).localSessions(),
    });
    const expectNoneAdded = (before: { calls: number; slots: number }) => {
      const now = held();
      expect(now.calls, 'calls').to.be.at.most(before.calls);
      expect(now.slots, 'session slots').to.be.at.most(before.slots);
    };

    it('answers a video offer naming a face with a sendonly H.264 track in the audio stream, and sends H.264 starting with a keyframe', async () => {
      const c = client(true);
      const res = await c.call(t.baseUrl, t.apiKey, { ...SESSION, avatar: FACE });
      expect(res.status, res.body).to.equal(201);
      const video = videoSection(res.body);
      expect(video).to.match(/^a=sendonly/m);
      expect(video).to.match(/^a=rtpmap:\d+ H264\/90000/im);
      expect(video).to.match(/packetization-mode=1/);
      const audioMsid = /^a=msid:(\S+)/m.exec(res.body.slice(0, res.body.indexOf('m=video')))?.[1];
      expect(/^a=msid:(\S+)/m.exec(video)?.[1], 'video in the reply audio stream').to.equal(audioMsid);
      const created = await c.waitForType('session.created', 30_000);
      expect(created.session.avatar).to.deep.equal({ size: '640x480' });
      await c.waitUntil(() => c.videoRtp.filter((p) => p.marker).length >= 10, 30_000, '10 video frames');
      const first = c.videoRtp[0]!.payload;
      // STAP-A carrying SPS (7) first, or the SPS alone
      const firstType = first[0]! & 0x1f;
      const firstUnit = firstType === 24 ? first[3]! & 0x1f : firstType;
      expect(firstUnit, 'the first unit is the SPS of a keyframe').to.equal(7);
      const stamps = [...new Set(c.videoRtp.filter((p) => p.marker).map((p) => p.timestamp))];
      const steps = stamps.slice(1).map((ts, i) => (ts - stamps[i]!) >>> 0);
      expect(
        steps.every((d) => d % 3600 === 0),
        `90 kHz timestamps on the 25 fps grid: ${steps.join(',')}`,
      ).to.equal(true);
    });

    it('a keyframe request (RTCP PLI) gets a keyframe at once instead of at the next one of the 2 s GOP', async () => {
      const c = client(true);
      const res = await c.call(t.baseUrl, t.apiKey, { ...SESSION, avatar: FACE });
      expect(res.status, res.body).to.equal(201);
      const keyframes = () => c.videoRtp.filter((p) => startsKeyframe(p.payload));
      // the first keyframe and the GOP's next (restarts are at most one per GOP)
      await c.waitUntil(() => keyframes().length >= 2, 30_000, 'two keyframes');
      await new Promise((r) => setTimeout(r, 300));
      const before = keyframes().length;
      const askedAt = performance.now();
      const receiver = c.pc.getTransceivers().find((x) => x.kind === 'video')!.receiver;
      await receiver.sendRtcpPLI(c.videoRtp[0]!.ssrc);
      await c.waitUntil(() => keyframes().length > before, 10_000, 'a keyframe after the PLI');
      const lastNatural = keyframes()[before - 1]!.at;
      const answered = keyframes()[before]!.at;
      expect(answered - askedAt, 'keyframe after the request (ms)').to.be.below(1000);
      expect(answered - lastNatural, 'sooner than the GOP would have made one (ms)').to.be.below(1900);
    });

    it('an offer without video (or with VP8 video only) naming a face is a 400 avatar_requires_video before any answer', async () => {
      const before = held();
      for (const video of [false, 'vp8'] as const) {
        const res = await client(video).call(t.baseUrl, t.apiKey, { ...SESSION, avatar: FACE });
        expect(res.status, res.body).to.equal(400);
        expect(JSON.parse(res.body).error, `video: ${video}`).to.deep.include({ code: 'avatar_requires_video', param: 'session.avatar' });
      }
      expectNoneAdded(before);
    });

    it('a photo URL the SSRF rules refuse is a 400 media_url_not_allowed before any answer', async () => {
      const before = held();
      for (const ref_image of ['http://10.0.0.5/face.jpg', 'http://127.0.0.1:1/face.jpg']) {
        const res = await client(true).call(t.baseUrl, t.apiKey, { ...SESSION, avatar: { ref_image } });
        expect(res.status, res.body).to.equal(400);
        expect(JSON.parse(res.body).error, ref_image).to.deep.include({
          code: 'media_url_not_allowed',
          param: 'session.avatar.ref_image',
        });
      }
      expectNoneAdded(before);
    });

    it('an inline photo that is no image is a 400 invalid_image before any answer', async () => {
      const before = held();
      const res = await client(true).call(t.baseUrl, t.apiKey, {
        ...SESSION,
        avatar: { ref_image: dataUri(Buffer.from('not an image at all'), 'image/jpeg') },
      });
      expect(res.status, res.body).to.equal(400);
      expect(JSON.parse(res.body).error).to.deep.include({ code: 'invalid_image', param: 'session.avatar.ref_image' });
      expectNoneAdded(before);
    });

    it('a photo without a face is answered (face detection runs while the call connects), then refused with no_face_detected', async () => {
      const c = client(true);
      const res = await c.call(t.baseUrl, t.apiKey, { ...SESSION, avatar: { ref_image: dataUri(await blankPng(), 'image/png') } });
      expect(res.status, res.body).to.equal(201);
      const error = await c.waitForType('error', 30_000);
      expect(error.error).to.deep.include({ code: 'no_face_detected', param: 'session.avatar.ref_image' });
    });

    it('answers a VP8-only video offer inactive (port 0, out of the BUNDLE group): the call goes on voice only', async () => {
      const c = client('vp8');
      const res = await c.call(t.baseUrl, t.apiKey, SESSION);
      expect(res.status, res.body).to.equal(201);
      const video = videoSection(res.body);
      expect(video).to.match(/^m=video 0 /);
      expect(video).to.match(/^a=inactive/m);
      const videoMid = /^a=mid:(\S+)/m.exec(video)?.[1];
      const bundle = /^a=group:BUNDLE(.*)$/m.exec(res.body)?.[1]?.trim().split(' ') ?? [];
      expect(bundle, 'the BUNDLE group').to.not.include(videoMid);
      expect(res.body.slice(0, res.body.indexOf('m=video')), 'the audio m-line').to.match(/^a=sendrecv/m);
      // the data channel works both ways and ICE/DTLS connect
      await c.waitForType('session.created', 30_000);
      c.send({ type: 'session.update', session: { type: 'realtime', instructions: 'Be brief.' } });
      await c.waitForType('session.updated', 30_000);
      expect(c.pc.connectionState).to.equal('connected');
      expect(c.videoRtp).to.have.length(0);
    });

    it('a video offer without a face gets a sendonly track but no frames until the session names one', async () => {
      const c = client(true);
      const res = await c.call(t.baseUrl, t.apiKey, SESSION);
      expect(res.status, res.body).to.equal(201);
      await c.waitForType('session.created', 30_000);
      await new Promise((r) => setTimeout(r, 1000));
      expect(c.videoRtp).to.have.length(0);
    });
  });

  describe('without it (SVC_LIVE_AVATAR_ENABLED=false)', () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer({ env: { SVC_LIVE_AVATAR_ENABLED: 'false' } });
    });
    after(async () => t?.close());

    it('answers the video m-line inactive and refuses session.avatar with avatar_unavailable', async () => {
      const c = client(true);
      const res = await c.call(t.baseUrl, t.apiKey, SESSION);
      expect(res.status, res.body).to.equal(201);
      expect(videoSection(res.body)).to.match(/^a=inactive/m);
      // refused (port 0), so out of the BUNDLE group (RFC 8843 7.3.3): Chromium fails an answer whose
      // group starts with a rejected m-line, and keeps transport state for one listed anywhere in it
      expect(videoSection(res.body)).to.match(/^m=video 0 /);
      const videoMid = /^a=mid:(\S+)/m.exec(videoSection(res.body))?.[1];
      const bundle = /^a=group:BUNDLE(.*)$/m.exec(res.body)?.[1]?.trim().split(' ') ?? [];
      expect(videoMid).to.be.a('string');
      expect(bundle, 'the BUNDLE group').to.not.include(videoMid);
      expect(bundle.length, 'audio and the data channel stay bundled').to.equal(2);
      const refused = await client(true).call(t.baseUrl, t.apiKey, { ...SESSION, avatar: FACE });
      expect(refused.status, refused.body).to.equal(400);
      expect(JSON.parse(refused.body).error).to.deep.include({ code: 'avatar_unavailable', param: 'session.avatar' });
    });
  });
});
