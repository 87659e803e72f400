import { expect } from 'chai';
import {
  VideoBacklogLimitError,
  VideoNotFoundError,
  type CreateVideo,
  type DeleteVideo,
  type GetVideo,
  type GetVideoContent,
  type ListVideos,
  type StreamVideo,
} from '@svc/core';
import { videoRoutes } from '../../src/video/video-routes.js';
import { errorOf, startApp, type RunningApp } from '../support/http-app.js';

/**
 * The video routes in process: the real Koa app, router, body readers and error mapper, with use
 * cases that record what reached them (none should be reached by the refusals here).
 */
describe('video routes (in-process HTTP app, in-memory use cases)', () => {
  let app: RunningApp;
  const reached: string[] = [];
  const recording = <T>(op: string, answer: (...args: unknown[]) => unknown = () => undefined) =>
    ({
      async execute(...args: unknown[]) {
        // Create and stream get a body reader, read once the request is admitted: read it, as they do.
        if (typeof args[1] === 'function') args[1] = await (args[1] as () => Promise<unknown>)();
        reached.push(op);
        return answer(...args);
      },
    }) as unknown as T;
  const notFound = (_principal: unknown, id: unknown) => {
    throw new VideoNotFoundError(String(id));
  };

  before(async () => {
    app = await startApp({
      api: [
        videoRoutes({
          create: recording<CreateVideo>('create'),
          stream: recording<StreamVideo>('stream'),
          get: recording<GetVideo>('get', notFound),
          content: recording<GetVideoContent>('content', notFound),
          list: recording<ListVideos>('list'),
          remove: recording<DeleteVideo>('remove', notFound),
          jsonBodyLimit: 64 * 1024,
        }),
      ],
    });
  });
  after(() => app.close());
  beforeEach(() => {
    reached.length = 0;
  });

  it('/v1/videos/stream with a method other than POST is 405 method_not_allowed, not a video lookup', async () => {
    for (const method of ['GET', 'DELETE', 'PUT', 'PATCH']) {
      const res = await app.call('/v1/videos/stream', { method });
      expect(res.status, method).to.equal(405);
      expect(res.headers.get('content-type'), method).to.match(/application\/json/);
      expect(await errorOf(res), method).to.include({ type: 'method_not_allowed' });
    }
    const get = await app.call('/v1/videos/stream');
    expect(get.headers.get('allow')).to.equal('POST');
    expect((await errorOf(get)).message).to.equal('GET is not allowed on /v1/videos/stream; it only takes POST.');
    const head = await app.call('/v1/videos/stream', { method: 'HEAD' });
    expect(head.status).to.equal(405);
    expect(reached).to.deep.equal([]);
  });

  it('a key over its limit of pending videos is 429 concurrency_limit_exceeded with Retry-After, its body never read', async () => {
    const full = await startApp({
      api: [
        videoRoutes({
          create: {
            execute: async () => {
              throw new VideoBacklogLimitError(10);
            },
          } as unknown as CreateVideo,
          stream: recording<StreamVideo>('stream'),
          get: recording<GetVideo>('get'),
          content: recording<GetVideoContent>('content'),
          list: recording<ListVideos>('list'),
          remove: recording<DeleteVideo>('remove'),
          jsonBodyLimit: 64 * 1024,
        }),
      ],
    });
    try {
      // Not JSON: a body read before the limit would be a 400 invalid_json.
      const res = await full.call('/v1/videos', { method: 'POST', body: '{not json', headers: { 'Content-Type': 'application/json' } });
      expect(res.status).to.equal(429);
      expect(res.headers.get('retry-after')).to.equal('30');
      expect(await errorOf(res)).to.include({ type: 'concurrency_limit_exceeded', param: null });
    } finally {
      await full.close();
    }
  });

  it('a multipart input_tts that is not JSON is 400 invalid_json naming input_tts', async () => {
    const form = new FormData();
    form.set('ref_image', 'https://example.test/face.jpg');
    form.set('input_tts', 'not json');
    const res = await app.call('/v1/videos', { method: 'POST', body: form });
    expect(res.status).to.equal(400);
    expect(await errorOf(res)).to.deep.equal({
      type: 'invalid_json',
      code: 'invalid_json',
      param: 'input_tts',
      message: "'input_tts' must be a JSON object (the speech request).",
    });
    expect(reached).to.deep.equal([]);
  });

  it('a video id is still looked up on GET and DELETE /v1/videos/{id}', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await app.call('/v1/videos/video_nope', { method });
      expect(res.status, method).to.equal(404);
      expect(await errorOf(res), method).to.include({ type: 'video_not_found' });
    }
    expect(reached).to.deep.equal(['get', 'remove']);
  });
});
