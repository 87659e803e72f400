import { expect } from 'chai';
import type { PcmAudio } from '../../src/shared/audio.js';
import type { EncoderFormat, OpenedMediaEncoder, VideoFrame } from '../../src/video/ports.js';
import { RenderVideoJob } from '../../src/video/render-video-job.js';
import { StreamVideo } from '../../src/video/stream-video.js';
import type { VideoSize } from '../../src/video/video-job.js';
import { base64, FakeEncoder, pngBytes, speechBytes } from './video-fakes.js';
import { alice, videoWorld } from './video-world.js';

/** FakeEncoder that can also be opened ahead of its input; records what happens to each opened one. */
class OpeningEncoder extends FakeEncoder {
  opened: Array<{ format: EncoderFormat; state: 'waiting' | 'encoded' | 'closed unused'; preloaded?: PcmAudio }> = [];
  direct = 0;

  override encodeFragmentedMp4(
    frames: AsyncIterable<VideoFrame>,
    audio: PcmAudio,
    options: EncoderFormat,
    signal?: AbortSignal,
  ): AsyncIterable<Uint8Array> {
    this.direct++;
    return super.encodeFragmentedMp4(frames, audio, options, signal);
  }

  open(format: EncoderFormat): OpenedMediaEncoder {
    const record: (typeof this.opened)[number] = { format, state: 'waiting' };
    this.opened.push(record);
    format.onStarted?.();
    return {
      format: { fps: format.fps, width: format.width, height: format.height },
      preload: (audio) => {
        record.preloaded = audio;
      },
      encode: (frames, audio, signal) => {
        record.state = 'encoded';
        return super.encodeFragmentedMp4(frames, audio, format, signal);
      },
      close: () => {
        if (record.state === 'waiting') record.state = 'closed unused';
      },
    };
  }
}

const face = base64(pngBytes(800, 600));
const noFace = base64(pngBytes(800, 600, 'NOFACE'));

function world(fps: number | undefined) {
  const w = videoWorld();
  w.renderer.fps = fps;
  const encoder = new OpeningEncoder();
  // the face check holds until the test lets it go, so what happens meanwhile can be seen
  let letGo!: () => void;
  const gate = new Promise<void>((resolve) => (letGo = resolve));
  const prepare = w.renderer.prepare.bind(w.renderer);
  w.renderer.prepare = async (image: Uint8Array, size: VideoSize) => {
    await gate;
    return prepare(image, size);
  };
  const stream = new StreamVideo(w.create, new RenderVideoJob(w.jobs, w.blobs, w.renderer, encoder, w.clock));
  return { w, encoder, stream, letGo };
}

describe('StreamVideo: the encoder starts while the face and the speech are checked', () => {
  it('opens the encoder for the request size before the face is ready, and the render encodes through that one', async () => {
    const { encoder, stream, letGo } = world(25);
    const started = stream.execute(alice, { ref_image: face, size: '640x480', input: base64(speechBytes(1.2)) });
    await new Promise((r) => setTimeout(r, 10));
    expect(encoder.opened).to.have.length(1);
    expect(encoder.opened[0]!.format).to.include({ fps: 25, width: 640, height: 480 });
    expect(encoder.opened[0]!.state, 'opened while the face is still being prepared').to.equal('waiting');
    letGo();
    const { fragments } = await started;
    const out: string[] = [];
    for await (const f of fragments) out.push(new TextDecoder().decode(f));
    expect(out).to.deep.equal(['INIT', 'FRAG25', 'FRAG30']);
    expect(encoder.opened.map((o) => o.state)).to.deep.equal(['encoded']);
    expect(encoder.direct, 'no second encoder started').to.equal(0);
  });

  it('hands the speech to the opened encoder and to the renderer as soon as it is ready, before the face, the same audio and clip the render takes', async () => {
    const { w, encoder, stream, letGo } = world(25);
    const started = stream.execute(alice, { ref_image: face, input: base64(speechBytes(1.2)) });
    for (let i = 0; i < 100 && !encoder.opened[0]?.preloaded; i++) await new Promise((r) => setTimeout(r, 2));
    expect(encoder.opened[0]!.preloaded, 'the audio reached the encoder while the face was still being prepared').to.not.equal(undefined);
    expect(encoder.opened[0]!.preloaded!.samples.length).to.equal(Math.round(1.2 * 24000));
    expect(w.renderer.analysed, 'the renderer read the speech while the face was still being prepared').to.have.length(1);
    letGo();
    const { fragments } = await started;
    for await (const _f of fragments);
    expect(w.renderer.drives[0]!.audio.samples).to.equal(encoder.opened[0]!.preloaded!.samples);
    expect(w.renderer.drives[0], 'the very clip the renderer read ahead').to.equal(w.renderer.analysed[0]);
  });

  it('a renderer whose early speech analysis throws still renders the stream (the analysis is a hint)', async () => {
    const { w, stream, letGo } = world(25);
    w.renderer.analyseSpeech = () => {
      throw new Error('analysis failed');
    };
    letGo();
    const { fragments } = await stream.execute(alice, { ref_image: face, input: base64(speechBytes(1.2)) });
    const out: string[] = [];
    for await (const f of fragments) out.push(new TextDecoder().decode(f));
    expect(out).to.deep.equal(['INIT', 'FRAG25', 'FRAG30']);
  });

  it('a request refused after the encoder started (no face, bad driving audio) closes it unused', async () => {
    const { encoder, stream, letGo } = world(25);
    letGo();
    const refused = await stream.execute(alice, { ref_image: noFace, input: base64(speechBytes(1)) }).catch((e: unknown) => e);
    expect(refused).to.have.property('identifier', 'no_face_detected');
    const badAudio = await stream
      .execute(alice, { ref_image: face, input: base64(new TextEncoder().encode('not audio')) })
      .catch((e: unknown) => e);
    expect(badAudio).to.have.property('param', 'input');
    expect(encoder.opened.map((o) => o.state)).to.deep.equal(['closed unused', 'closed unused']);
    // refused before the checks began (a bad size): nothing was opened
    await stream.execute(alice, { ref_image: face, size: 'big', input: base64(speechBytes(1)) }).catch(() => undefined);
    expect(encoder.opened).to.have.length(2);
  });

  it('a renderer that cannot tell its frame rate ahead: the encoder starts with the frames, as before', async () => {
    const { encoder, stream, letGo } = world(undefined);
    letGo();
    const { fragments } = await stream.execute(alice, { ref_image: face, input: base64(speechBytes(0.5)) });
    for await (const _f of fragments);
    expect(encoder.opened).to.have.length(0);
    expect(encoder.direct).to.equal(1);
  });

  it("an opened encoder whose format is not the prepared avatar's is closed and a matching one started", async () => {
    const { encoder, stream, letGo } = world(30); // the renderer says 30, its avatars render at 25
    letGo();
    const { fragments } = await stream.execute(alice, { ref_image: face, input: base64(speechBytes(0.5)) });
    for await (const _f of fragments);
    expect(encoder.opened.map((o) => o.state)).to.deep.equal(['closed unused']);
    expect(encoder.direct).to.equal(1);
  });
});
