import { expect } from 'chai';
import fc from 'fast-check';
import { parseClientEvent, ServiceError } from '@svc/core';
import { httpStatusOf } from '@svc/adapters-http';
import { detectAudioFormat, FfmpegAudioCodec } from '@svc/adapters-media';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { childProcesses, sleep } from '../helpers/http.js';
import { expectRestError, openDescriptorCount, trapUncaught } from './hardening-helpers.js';

/**
 * The robustness suite (issue 7, "keep them fixed"): property-based fuzzing with fast-check of the
 * JSON body reader, the multipart reader, the media sniffer and the ffmpeg decoder, and the realtime
 * event parser. Properties: the process never dies (no uncaught exception), every answer is a
 * success or in the REST error shape and never a 5xx, and nothing is left open (no ffmpeg child,
 * no descriptor growth). Runs are bounded (fixed numRuns and a time limit per property) so the suite
 * stays a few seconds per property; a failure prints the seed and the shrunk counterexample.
 */
describe('robustness: property-based fuzzing (fast-check)', function () {
  this.timeout(120_000);
  const budget = { numRuns: 60, interruptAfterTimeLimit: 15_000 };
  let t: TestServer;
  let trap: ReturnType<typeof trapUncaught>;
  before(async () => {
    t = await startTestServer();
    trap = trapUncaught();
  });
  after(async () => {
    trap?.release();
    await t?.close();
  });
  afterEach(() => expect(trap.errors.map(String), 'uncaught exceptions').to.deep.equal([]));

  const post = (path: string, body: Uint8Array | string, contentType: string) =>
    fetch(`${t.baseUrl}${path}`, { method: 'POST', headers: { Authorization: `Bearer ${t.apiKey}`, 'Content-Type': contentType }, body });

  /** A response is a success, or a 4xx in the REST error shape; a 5xx is a defect. */
  async function expectWellFormed(res: Response): Promise<void> {
    const text = await res.text();
    if (res.status < 300) return;
    expect(res.status, text.slice(0, 300)).to.be.within(400, 499);
    expect(res.headers.get('content-type')).to.match(/application\/json/);
    expectRestError(JSON.parse(text));
  }

  const jsonish = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.json({ maxDepth: 3 }),
    fc
      .record(
        {
          input: fc.oneof(fc.string({ maxLength: 60 }), fc.anything({ maxDepth: 1 })),
          voice: fc.oneof(fc.constant('alloy'), fc.string({ maxLength: 20 }), fc.anything({ maxDepth: 1 })),
          response_format: fc.constantFrom('mp3', 'wav', 'pcm', 'x', 42),
          speed: fc.oneof(fc.double(), fc.string()),
          tn_language: fc.oneof(fc.string({ maxLength: 40 }), fc.constant('en')),
        },
        { requiredKeys: [] },
      )
      .map((o) => JSON.stringify(o)),
  );

  it('JSON body reader (/v1/audio/speech, /v1/audio/voices): any body is a success or a 4xx in the error shape', async () => {
    await fc.assert(
      fc.asyncProperty(
        jsonish,
        fc.constantFrom('/v1/audio/speech', '/v1/audio/voices', '/v1/realtime/client_secrets'),
        async (body, path) => {
          await expectWellFormed(await post(path, body, 'application/json'));
        },
      ),
      budget,
    );
  });

  const part = fc.record({
    name: fc.oneof(fc.constantFrom('ref_audio', 'ref_text', 'description'), fc.string({ maxLength: 12 })),
    file: fc.boolean(),
    bytes: fc.uint8Array({ maxLength: 400 }),
    closed: fc.boolean(),
  });

  it('multipart reader: random parts, truncated or not, random bytes around them: never a crash, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 100 }),
        fc.array(part, { maxLength: 4 }),
        fc.uint8Array({ maxLength: 100 }),
        fc.boolean(),
        async (before, parts, afterBytes, end) => {
          const chunks: Buffer[] = [Buffer.from(before)];
          for (const p of parts) {
            const disposition = `form-data; name="${p.name.replace(/["\r\n]/g, '')}"${p.file ? '; filename="a.wav"' : ''}`;
            chunks.push(Buffer.from(`\r\n--B\r\nContent-Disposition: ${disposition}\r\n\r\n`), Buffer.from(p.bytes));
            if (!p.closed) break; // the body ends inside this part
          }
          if (end) chunks.push(Buffer.from('\r\n--B--\r\n'));
          chunks.push(Buffer.from(afterBytes));
          await expectWellFormed(await post('/v1/audio/voices', Buffer.concat(chunks), 'multipart/form-data; boundary=B'));
        },
      ),
      budget,
    );
  });

  it('media sniffer: detectAudioFormat never throws on any bytes, including mutated real headers', () => {
    const headers = ['RIFF\0\0\0\0WAVE', 'ID3', 'fLaC', 'OggS', '\0\0\0\x20ftypM4A ', '\x1aE\xdf\xa3', 'FORM\0\0\0\0AIFF', '\xff\xf1'].map(
      (h) => Buffer.from(h, 'latin1'),
    );
    fc.assert(
      fc.property(fc.constantFrom(...headers), fc.uint8Array({ maxLength: 64 }), fc.nat(16), (header, tail, cut) => {
        const bytes = new Uint8Array(Buffer.concat([header.subarray(0, header.length - Math.min(cut, header.length)), Buffer.from(tail)]));
        const found = detectAudioFormat(bytes);
        expect(found === null || typeof found === 'string').to.equal(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('ffmpeg decoder: any bytes decode or fail with a ServiceError, leaving no ffmpeg process and no descriptor behind', async () => {
    const codec = new FfmpegAudioCodec();
    const headers = ['RIFF\x24\0\0\0WAVEfmt ', 'ID3\x03\0\0\0\0\0\0', 'fLaC\0\0\0\x22', 'OggS\0\x02', '\xff\xfb\x90\x64'].map((h) =>
      Buffer.from(h, 'latin1'),
    );
    const fdsBefore = openDescriptorCount();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...headers), fc.uint8Array({ maxLength: 2000 }), async (header, tail) => {
        const bytes = new Uint8Array(Buffer.concat([header, Buffer.from(tail)]));
        try {
          const decoded = await codec.decode(bytes, 16000);
          expect(decoded).to.be.an('object');
        } catch (err) {
          expect(err, String(err)).to.be.instanceOf(ServiceError);
          expect(httpStatusOf(err as ServiceError)).to.be.within(400, 499);
        }
      }),
      { numRuns: 25, interruptAfterTimeLimit: 20_000 },
    );
    await sleep(200);
    expect(childProcesses('ffmpeg'), 'ffmpeg processes left running').to.deep.equal([]);
    expect(openDescriptorCount() - fdsBefore, 'descriptor growth').to.be.at.most(4);
  });

  it('realtime event parser: any JSON value parses to an event or throws a 400 ServiceError, nothing else', () => {
    const types = [
      'session.update',
      'input_audio_buffer.append',
      'conversation.item.create',
      'response.create',
      'response.cancel',
      'conversation.item.truncate',
    ];
    const eventish = fc.oneof(
      fc.anything({ maxDepth: 3 }),
      fc.record(
        {
          type: fc.oneof(fc.constantFrom(...types), fc.string({ maxLength: 20 })),
          event_id: fc.anything({ maxDepth: 0 }),
          item: fc.anything({ maxDepth: 3 }),
          session: fc.anything({ maxDepth: 3 }),
          audio: fc.anything({ maxDepth: 1 }),
        },
        { requiredKeys: ['type'] },
      ),
    );
    fc.assert(
      fc.property(eventish, (raw) => {
        try {
          const event = parseClientEvent(raw, 'event_fuzz');
          expect(event).to.be.an('object');
        } catch (err) {
          expect(err, String(err)).to.be.instanceOf(ServiceError);
          expect(httpStatusOf(err as ServiceError)).to.equal(400);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('the server still answers after all of it', async () => {
    expect((await fetch(`${t.baseUrl}/healthz`)).status).to.equal(200);
  });
});
