import { expect } from 'chai';
import {
  decodeInlineMedia,
  NoFaceDetectedError,
  ReferenceImageLoader,
  type LiveAvatar,
  type LiveAvatarRenderer,
  type MediaFetcher,
  type MediaFetchOptions,
  type SessionVideoOutput,
  type VideoFrame,
  type VideoSize,
} from '../../src/index.js';
import { createHarness, startTextSession } from './support/session-harness.js';

/** The first bytes of a 64x48 PNG: enough for the header check the loader makes. */
function pngHeader(width = 64, height = 48): Uint8Array {
  const b = new Uint8Array(64);
  b.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  new DataView(b.buffer).setUint32(16, width);
  new DataView(b.buffer).setUint32(20, height);
  return b;
}

class FakeFetcher implements MediaFetcher {
  fetched: string[] = [];
  /** The API key each fetch was made for (its large transfers in progress count a URL download). */
  forKeys: Array<string | undefined> = [];
  async fetch(input: string | Uint8Array, options: MediaFetchOptions): Promise<Uint8Array> {
    this.fetched.push(String(input));
    this.forKeys.push(options.apiKeyId);
    // an inline photo over a (small) limit, refused as the real fetcher does
    if (String(input).startsWith('data:image/png;base64,BIG'))
      return decodeInlineMedia(String(input).slice(22), options.param, 1000, options);
    if (String(input).includes('not-an-image')) return new Uint8Array([1, 2, 3, 4]);
    return pngHeader();
  }
}

class FakeAvatar implements LiveAvatar {
  readonly width = 64;
  readonly height = 48;
  readonly fps = 25;
  closed = false;
  constructor(readonly size: VideoSize) {}
  speak(): void {}
  cut(): void {}
  frame(): Promise<VideoFrame> {
    return Promise.resolve({ rgb: new Uint8Array(64 * 48 * 3), width: 64, height: 48 });
  }
  close(): void {
    this.closed = true;
  }
}

class FakeRenderer implements LiveAvatarRenderer {
  opened: FakeAvatar[] = [];
  noFace = false;
  async open(_image: Uint8Array, options: { size: VideoSize }): Promise<LiveAvatar> {
    if (this.noFace) throw new NoFaceDetectedError();
    const a = new FakeAvatar(options.size);
    this.opened.push(a);
    return a;
  }
}

class FakeVideo implements SessionVideoOutput {
  shown: (LiveAvatar | null)[] = [];
  show(avatar: LiveAvatar | null): void {
    this.shown.push(avatar);
  }
}

function services() {
  const fetcher = new FakeFetcher();
  const renderer = new FakeRenderer();
  return { fetcher, renderer, liveAvatar: { renderer, images: new ReferenceImageLoader(fetcher) } };
}

const PHOTO = 'https://example.test/face.png';

describe('session.avatar (extension): a face on the call video', () => {
  it('a call with video shows the face, echoes it (URL, size), keeps it across updates, swaps and removes it, and frees it at the end', async () => {
    const s = services();
    const video = new FakeVideo();
    const h = await startTextSession({ deps: { liveAvatar: s.liveAvatar }, options: { video } }, { avatar: { ref_image: PHOTO } });
    expect(h.created).to.deep.include({ type: 'session.created' });
    expect((h.created as unknown as { session: { avatar: unknown } }).session.avatar).to.deep.equal({ size: '640x640', ref_image: PHOTO });
    expect(s.renderer.opened).to.have.length(1);
    expect(video.shown).to.deep.equal([s.renderer.opened[0]]);
    expect(s.fetcher.forKeys, "fetched for the session's key").to.deep.equal(['key_test']);

    // another update that leaves the face alone, or echoes it back without ref_image: nothing reopened
    await h.send({ type: 'session.update', session: { instructions: 'Be brief.' } });
    await h.send({ type: 'session.update', session: { avatar: { size: '640x640' } } });
    expect(s.renderer.opened).to.have.length(1);
    expect(h.out.closed).to.equal(null);

    // a new size is a new face; the old one is closed once the new one shows
    await h.send({ type: 'session.update', session: { avatar: { ref_image: 'data:image/png;base64,AAAA', size: '480x640' } } });
    expect(s.renderer.opened.map((a) => a.size)).to.deep.equal(['640x640', '480x640']);
    expect(video.shown[1]).to.equal(s.renderer.opened[1]);
    expect(s.renderer.opened[0]!.closed).to.equal(true);
    const updated = h.out.last('session.updated') as unknown as { session: { avatar: unknown } };
    expect(updated.session.avatar, 'an inline image is not echoed').to.deep.equal({ size: '480x640' });

    await h.send({ type: 'session.update', session: { avatar: null } });
    expect(video.shown[2]).to.equal(null);
    expect(s.renderer.opened[1]!.closed).to.equal(true);
    expect((h.out.last('session.updated') as unknown as { session: Record<string, unknown> }).session).to.not.have.property('avatar');

    await h.send({ type: 'session.update', session: { avatar: { ref_image: PHOTO } } });
    h.engine.transportClosed();
    expect(s.renderer.opened[2]!.closed).to.equal(true);
    expect(video.shown[video.shown.length - 1]).to.equal(null);
  });

  it('a session without video (a WebSocket) naming a face: error avatar_requires_video, then closed as an invalid configuration', async () => {
    const s = services();
    const h = createHarness({ deps: { liveAvatar: s.liveAvatar } });
    await h.send({ type: 'session.update', session: { model: 'svc-realtime', avatar: { ref_image: PHOTO } } });
    expect(h.out.types()).to.deep.equal(['error']);
    expect((h.out.events[0] as unknown as { error: Record<string, unknown> }).error).to.deep.include({
      type: 'invalid_request_error',
      code: 'avatar_requires_video',
      param: 'session.avatar',
    });
    expect(h.out.closed?.ending).to.equal('invalid_configuration');
    expect(s.fetcher.fetched, 'nothing fetched').to.deep.equal([]);
  });

  it('a photo that is no image or holds no face fails the update at session.avatar.ref_image, and the session closes', async () => {
    for (const [photo, code, noFace] of [
      ['https://example.test/not-an-image', 'invalid_image', false],
      [PHOTO, 'no_face_detected', true],
    ] as const) {
      const s = services();
      s.renderer.noFace = noFace;
      const h = createHarness({ deps: { liveAvatar: s.liveAvatar }, options: { video: new FakeVideo() } });
      await h.send({ type: 'session.update', session: { model: 'svc-realtime', avatar: { ref_image: photo } } });
      const error = (h.out.events[0] as unknown as { error: Record<string, unknown> }).error;
      expect(error, photo).to.deep.include({ type: 'invalid_request_error', code, param: 'session.avatar.ref_image' });
      expect(String(error.message)).to.contain('session.avatar.ref_image');
      expect(h.out.closed?.ending).to.equal('invalid_configuration');
    }
  });

  it('an oversize inline photo is refused as an image, advising a URL (a session cannot upload a file)', async () => {
    const s = services();
    const h = createHarness({ deps: { liveAvatar: s.liveAvatar }, options: { video: new FakeVideo() } });
    const photo = `data:image/png;base64,BIG${'A'.repeat(2000)}`;
    await h.send({ type: 'session.update', session: { model: 'svc-realtime', avatar: { ref_image: photo } } });
    const error = (h.out.events[0] as unknown as { error: Record<string, unknown> }).error;
    expect(error).to.deep.include({ code: 'media_too_large', param: 'session.avatar.ref_image' });
    expect(String(error.message)).to.contain("'session.avatar.ref_image'");
    expect(String(error.message)).to.contain('of image once decoded; send larger images by URL');
    expect(String(error.message)).not.to.contain('multipart');
  });

  it('bad avatar fields are refused before anything is fetched', async () => {
    for (const [avatar, code, param] of [
      [{ ref_image: PHOTO, size: '1920x1080' }, 'invalid_value', 'session.avatar.size'],
      [{ size: '640x640' }, 'missing_required_parameter', 'session.avatar.ref_image'],
      [{ ref_image: 42 }, 'invalid_type', 'session.avatar.ref_image'],
      [{ ref_image: PHOTO, fps: 60 }, 'unknown_parameter', 'session.avatar.fps'],
      ['face.png', 'invalid_type', 'session.avatar'],
    ] as const) {
      const s = services();
      const h = createHarness({ deps: { liveAvatar: s.liveAvatar }, options: { video: new FakeVideo() } });
      await h.send({ type: 'session.update', session: { model: 'svc-realtime', avatar } });
      expect((h.out.events[0] as unknown as { error: Record<string, unknown> }).error, JSON.stringify(avatar)).to.deep.include({
        code,
        param,
      });
      expect(s.fetcher.fetched).to.deep.equal([]);
    }
  });

  it('a server without the live avatar refuses the field (avatar_unavailable)', async () => {
    const h = createHarness({ options: { video: new FakeVideo() } });
    await h.send({ type: 'session.update', session: { model: 'svc-realtime', avatar: { ref_image: PHOTO } } });
    expect((h.out.events[0] as unknown as { error: Record<string, unknown> }).error).to.deep.include({ code: 'avatar_unavailable' });
  });
});
