import { expect } from 'chai';
import { refusal } from '../support/refusal.js';
import type { VideoRequestInput } from '../../src/video/video-request.js';
import { videoBlobKeys } from '../../src/video/video-blobs.js';
import { base64, DurableRecordingQueue, pngBytes, RecordingQueue, speechBytes } from './video-fakes.js';
import { alice, bob, HOUR, videoWorld } from './video-world.js';

const face = base64(pngBytes(800, 600));

describe('CreateVideo', () => {
  it('stores the inputs and a queued job, then enqueues it', async () => {
    const w = videoWorld();
    const job = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(2.5)) });
    expect(job).to.include({ status: 'queued', progress: 0, size: '640x640', model: 'svc-avatar', apiKeyId: 'key_alice', attempts: 0 });
    expect(job.id).to.match(/^video_/);
    expect(job.durationSeconds).to.be.closeTo(2.5, 0.001);
    expect(job.expiresAt).to.equal(job.createdAt + 24 * HOUR);
    expect(w.queue.enqueued).to.deep.equal([job.id]);
    expect(await w.jobs.get(job.id)).to.deep.equal(job);
    const keys = videoBlobKeys(job);
    expect([...w.blobs.blobs.keys()]).to.have.members([keys.image, keys.audio, keys.speech]);
    expect(w.renderer.released).to.equal(1, 'the face prepared for the check is released');
  });

  it('a durable queue that does not answer: the stored job is answered queued (the repair scan enqueues it), not an error', async () => {
    const durable = new DurableRecordingQueue();
    durable.enqueue = async () => {
      throw new Error('Command timed out');
    };
    const w = videoWorld({ queue: durable });
    const job = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(2.5)) });
    expect(job.status).to.equal('queued');
    expect(await w.jobs.get(job.id)).to.deep.equal(job);
    // an in-process queue has no repair scan: its failure is the request's
    const inProcess = new RecordingQueue();
    inProcess.enqueue = async () => {
      throw new Error('queue closed');
    };
    const v = videoWorld({ queue: inProcess });
    const refused = await v.create.execute(alice, { ref_image: face, input: base64(speechBytes(2.5)) }).then(
      () => null,
      (err: Error) => err,
    );
    expect(refused?.message).to.equal('queue closed');
  });

  it('refuses a key over SVC_VIDEO_MAX_PENDING_PER_KEY queued or rendering videos with 429, before reading its body; other keys go on', async () => {
    const w = videoWorld({ maxPendingPerKey: 2 });
    const request = { ref_image: face, input: base64(speechBytes(1)) };
    const first = await w.create.execute(alice, request);
    await w.create.execute(alice, request);
    let read = false;
    const err = await refusal(
      w.create.execute(alice, async () => {
        read = true;
        return request;
      }),
    );
    expect(err.identifier).to.equal('concurrency_limit_exceeded');
    expect(err.message).to.contain('already has 2 videos queued or rendering');
    expect(read, 'the refused body is never read').to.equal(false);
    expect(w.jobs.rows.size).to.equal(2);
    await w.create.execute(bob, request);
    // A finished (or failed) video frees its place.
    await w.jobs.update({ ...(await w.jobs.get(first.id))!, status: 'completed', progress: 100 });
    await w.create.execute(alice, request);
  });

  it('counts a burst sent at once, before its rows exist: exactly the limit is admitted', async () => {
    const w = videoWorld({ maxPendingPerKey: 3 });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, () => w.create.execute(alice, { ref_image: face, input: base64(speechBytes(1)) })),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).to.have.length(3);
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason.identifier)).to.deep.equal(
      Array(5).fill('concurrency_limit_exceeded'),
    );
    // A refused or failed check leaves no count behind.
    await w.jobs.update({ ...[...w.jobs.rows.values()][0]!, status: 'failed', error: 'x' });
    await refusal(w.create.execute(alice, { ref_image: face }));
    await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(1)) });
  });

  it('stops decoding the driving audio a second past 60 s, and refuses it', async () => {
    const w = videoWorld();
    const err = await refusal(w.create.execute(alice, { ref_image: face, input: base64(speechBytes(75)) }));
    expect(err.identifier).to.equal('video_input_too_long');
    expect(w.codec.decodes).to.deep.equal([{ maxSeconds: 61 }]);
    expect(w.jobs.rows.size).to.equal(0);
    expect(w.blobs.blobs.size).to.equal(0);
  });

  it('synthesizes input_tts with word timings for the renderer', async () => {
    const w = videoWorld();
    const job = await w.create.execute(alice, {
      ref_image: face,
      input_tts: { input: 'Hello there. How are you today?', response_format: 'mp3' },
      size: '480x640',
    });
    expect(job.size).to.equal('480x640');
    expect(w.tts.calls.every((c) => c.wordTimings)).to.equal(true);
    const info = JSON.parse(new TextDecoder().decode(w.blobs.blobs.get(videoBlobKeys(job).speech)));
    expect(info.sampleRate).to.equal(24000);
    expect(info.words.map((x: { word: string }) => x.word)).to.deep.equal(['Hello', 'there.', 'How', 'are', 'you', 'today?']);
  });

  it('stops synthesizing once input_tts passes 60 s, and refuses it', async () => {
    const w = videoWorld();
    // 10 ms of tone per character at speed 1; at 0.25 each character lasts 40 ms: 40 sentences of 50 chars = 80 s.
    const text = Array.from({ length: 40 }, (_, i) => `Sentence number ${String(i).padStart(2, '0')} is exactly this long..`).join(' ');
    const err = await refusal(w.create.execute(alice, { ref_image: face, input_tts: { input: text, speed: 0.25 } }));
    expect(err.identifier).to.equal('input_tts_too_long');
    expect(w.tts.calls.length).to.be.lessThan(40, 'synthesis stopped early');
    expect(w.jobs.rows.size).to.equal(0);
  });

  const refusals: Array<[string, VideoRequestInput, string]> = [
    ['both inputs', { ref_image: face, input: base64(speechBytes(1)), input_tts: { input: 'Hi' } }, 'video_input_conflict'],
    ['neither input', { ref_image: face }, 'video_input_missing'],
    ['no ref_image', { input: base64(speechBytes(1)) }, 'missing_required_parameter'],
    ['a wrong size', { ref_image: face, input: base64(speechBytes(1)), size: '1920x1080' }, 'invalid_video_size'],
    ['a wrong model', { ref_image: face, input: base64(speechBytes(1)), model: 'sora-2' }, 'invalid_video_model'],
    [
      'an image that is not one',
      { ref_image: base64(new TextEncoder().encode('GIF89a not supported')), input: base64(speechBytes(1)) },
      'invalid_image',
    ],
    ['a decompression bomb', { ref_image: base64(pngBytes(30000, 30000)), input: base64(speechBytes(1)) }, 'image_dimensions_too_large'],
    ['a photo without a face', { ref_image: base64(pngBytes(640, 640, 'NOFACE')), input: base64(speechBytes(1)) }, 'no_face_detected'],
    ['a damaged image', { ref_image: base64(pngBytes(640, 640, 'CORRUPT')), input: base64(speechBytes(1)) }, 'invalid_image'],
    ['audio that is not audio', { ref_image: face, input: base64(new TextEncoder().encode('hello world')) }, 'invalid_audio'],
    [
      'nested stream',
      { ref_image: face, input_tts: { input: 'Hi', stream: true, response_format: 'pcm' } },
      'input_tts_stream_unsupported',
    ],
    ['an empty speech input', { ref_image: face, input_tts: { input: '' } }, 'input_empty'],
    ['speech input over 5000 characters', { ref_image: face, input_tts: { input: 'a'.repeat(5001) } }, 'input_too_long'],
    ['voice and ref_audio together', { ref_image: face, input_tts: { input: 'Hi', voice: 'slt', ref_audio: 'AAAA' } }, 'voice_conflict'],
    ['an unknown voice', { ref_image: face, input_tts: { input: 'Hi', voice: 'nobody' } }, 'voice_not_found'],
  ];
  for (const [what, body, identifier] of refusals) {
    it(`refuses ${what} (${identifier}) before any job or file exists`, async () => {
      const w = videoWorld();
      const err = await refusal(w.create.execute(alice, body));
      expect(err.identifier).to.equal(identifier);
      expect(w.jobs.rows.size).to.equal(0);
      expect(w.blobs.blobs.size).to.equal(0);
      expect(w.queue.enqueued).to.deep.equal([]);
    });
  }

  it('a speech rule inside input_tts names every field it quotes by its dotted path', async () => {
    const conflict = await refusal(
      videoWorld().create.execute(alice, { ref_image: face, input_tts: { input: 'Hi', voice: 'slt', ref_audio: 'AAAA' } }),
    );
    expect(conflict.message).to.equal(
      "'input_tts.voice' and 'input_tts.ref_audio'/'input_tts.ref_text' are mutually exclusive; send one or the other.",
    );
    const orphan = await refusal(videoWorld().create.execute(alice, { ref_image: face, input_tts: { input: 'Hi', ref_text: 'Hi' } }));
    expect(orphan.param).to.equal('input_tts.ref_text');
    expect(orphan.message).to.equal("'input_tts.ref_text' was given without 'input_tts.ref_audio'.");
  });

  it('an oversize inline photo or driving audio is named as such, with multipart or a URL as the way out', async () => {
    const tooBig = 'A'.repeat(10 * 1024 * 1024 + 4);
    const image = await refusal(videoWorld().create.execute(alice, { ref_image: tooBig, input: base64(speechBytes(1)) }));
    expect(image.identifier).to.equal('media_too_large');
    expect(image.param).to.equal('ref_image');
    expect(image.message).to.contain('about 7.5 MB of image once decoded; send larger images as multipart or by URL');
    const audio = await refusal(videoWorld().create.execute(alice, { ref_image: face, input: tooBig }));
    expect(audio.param).to.equal('input');
    expect(audio.message).to.contain('about 7.5 MB of audio once decoded; send larger audio files as multipart or by URL');
  });

  it('checks the cheap rules before fetching or preparing anything', async () => {
    const w = videoWorld();
    await refusal(w.create.execute(alice, { ref_image: base64(pngBytes(640, 640, 'NOFACE')), input: base64(speechBytes(1)), size: '1x1' }));
    expect(w.renderer.prepared).to.equal(0);
    expect(w.codec.decodes).to.have.length(0);
  });
});
