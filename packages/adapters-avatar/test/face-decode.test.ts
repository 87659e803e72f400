// @test-tier slow: decodes 4000 px photos (too long for the fast tier); its CPU comparison is of process CPU time, the paths interleaved round by round, so it runs beside other files
import { InvalidParameterError, NoFaceDetectedError } from '@svc/core';
import { expect } from 'chai';
import sharp from 'sharp';
import { decodeImage, downscale, fitInside, imageHeader } from '../src/decode-image.js';
import { loadFaceApi } from '../src/face-api-runtime.js';
import { detectLargestFace } from '../src/face-detection.js';
import { cropToFrame, frameRect, toFrame, type FrameRect } from '../src/framing.js';
import { LandmarkAvatarRenderer } from '../src/landmark-avatar-renderer.js';
import { decodeFrame, prepareFace } from '../src/prepare-face.js';
import type { Point, RgbImage } from '../src/rgb-image.js';
import { samplePhoto } from './avatar-measures.js';

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function psnr(a: RgbImage, b: RgbImage): number {
  expect([a.width, a.height]).to.deep.equal([b.width, b.height]);
  let sum = 0;
  for (let i = 0; i < a.data.length; i++) sum += (a.data[i]! - b.data[i]!) ** 2;
  return sum === 0 ? Infinity : 10 * Math.log10((255 * 255 * a.data.length) / sum);
}

const centre = (points: readonly Point[], from: number, to: number): Point => {
  const slice = points.slice(from, to);
  return { x: slice.reduce((s, p) => s + p.x, 0) / slice.length, y: slice.reduce((s, p) => s + p.y, 0) / slice.length };
};
const eyeDistance = (points: readonly Point[]): number => {
  const [a, b] = [centre(points, 36, 42), centre(points, 42, 48)];
  return Math.hypot(a.x - b.x, a.y - b.y);
};

const OPTIONS = { width: 640, height: 640, detectMaxSide: 1024, minFaceScore: 0.4 };

/** The face path before issue 24: the whole photo decoded, a lanczos copy of at most 1024 px for the nets, the frame cut from the whole photo. */
async function wholePhotoPath(
  bytes: Uint8Array,
  width = 640,
  height = 640,
): Promise<{ photo: RgbImage; rect: FrameRect; landmarks: Point[]; framed: RgbImage }> {
  const photo = await decodeImage(bytes);
  const small = await downscale(photo, 1024);
  const face = (await detectLargestFace(await loadFaceApi(), small.image, 0.4))!;
  const landmarks = face.landmarks.map((p) => ({ x: p.x / small.scale, y: p.y / small.scale }));
  const rect = frameRect(landmarks, photo.width, photo.height, width, height);
  return { photo, rect, landmarks, framed: await cropToFrame(photo, rect, width, height) };
}

/** The photo stored so that EXIF `orientation` turns it upright again (the inverse of each orientation's turn). */
function storedAs(upright: Buffer, orientation: number): Promise<Buffer> {
  let stored = sharp(upright);
  if (orientation === 2) stored = stored.flop();
  if (orientation === 3) stored = stored.rotate(180);
  if (orientation === 4) stored = stored.flip();
  if (orientation === 5) stored = stored.rotate(90).flip();
  if (orientation === 6) stored = stored.rotate(-90);
  if (orientation === 7) stored = stored.rotate(-90).flip();
  if (orientation === 8) stored = stored.rotate(90);
  return stored.withMetadata({ orientation }).jpeg({ quality: 92 }).toBuffer();
}

/** A phone-sized photo: a sample scaled to 4000 px wide (11 MP), JPEG quality 92. */
const phonePhoto = (n: number): Promise<Buffer> => sharp(samplePhoto(n)).resize(4000).jpeg({ quality: 92 }).toBuffer();

describe('Face preparation decodes only what it needs (issue 24)', function () {
  this.timeout(300_000);

  it("decodes a 4000 px photo's 1024 px detector copy shrunk on load (from the JPEG's DCT blocks: other pixels, the same picture), for less CPU than decoding the whole photo and scaling it", async () => {
    const photo = await phonePhoto(3);
    const header = await imageHeader(photo);
    const size = fitInside(header.width, header.height, 1024);
    const cpu = { decode: 0, downscale: 0, shrunk: 0 };
    for (let round = 0; round < 4; round++) {
      let started = cpuMs();
      const whole = await decodeImage(photo);
      if (round > 0) cpu.decode += cpuMs() - started;
      started = cpuMs();
      const { image: old } = await downscale(whole, 1024);
      if (round > 0) cpu.downscale += cpuMs() - started;
      started = cpuMs();
      const copy = await decodeImage(photo, { size });
      if (round > 0) cpu.shrunk += cpuMs() - started;
      // Decoded at 1/2 by libjpeg, then lanczos: not the pixels of a whole decode and a lanczos
      // (which a 1920 px sample, reduced less than 3x, does give: below), yet the same picture.
      expect([copy.width, copy.height]).to.deep.equal([old.width, old.height]);
      expect(psnr(copy, old)).to.be.within(40, 1000);
    }
    console.log(
      `      CPU for 3 copies: whole decode ${Math.round(cpu.decode)} ms + downscale ${Math.round(cpu.downscale)} ms, shrunk on load ${Math.round(cpu.shrunk)} ms`,
    );
    // Measured at load ~1: 169 against 651 + 124 ms. (Part of the saving is the one streaming
    // pipeline that never holds the 33 MB photo: with fastShrinkOnLoad off it reads ~220 ms.) How
    // much it saves depends on the CPU: on a later machine of the same kind, whose libjpeg-turbo
    // decodes the whole photo 4x faster, 102 against 150 + 66 ms (34 against 50 ms per decode),
    // and the CI run there failed the old bound (under half the whole decode alone).
    expect(cpu.shrunk).to.be.below(0.8 * (cpu.decode + cpu.downscale));
    const sample = samplePhoto(3);
    const sampleHeader = await imageHeader(sample);
    const { image: sampleOld } = await downscale(await decodeImage(sample), 1024);
    const sampleCopy = await decodeImage(sample, { size: fitInside(sampleHeader.width, sampleHeader.height, 1024) });
    expect(psnr(sampleCopy, sampleOld), 'a 1920 px photo to 1024 px: no shrink-on-load, the same pixels').to.equal(Infinity);
  });

  it("leaves face-api's 1920 px samples as they were: the same landmarks and the very same frame as the whole-photo path", async () => {
    const runtime = await loadFaceApi();
    for (let n = 1; n <= 6; n++) {
      const before = await wholePhotoPath(samplePhoto(n));
      const now = await prepareFace(runtime, samplePhoto(n), OPTIONS);
      if (!now.ok) throw new Error(now.message);
      // the blinks' eyelids are fitted to these landmarks: a 640 px copy (which would shrink on
      // load) moves them by 1-6 % of the eye distance and fails blink-closure on samples 2, 3, 4 (lid artefacts)
      expect(now.landmarks, `sample${n}`).to.deep.equal(toFrame(before.landmarks, before.rect));
      expect(psnr(now.framed, before.framed), `sample${n}`).to.equal(Infinity);
    }
  });

  it('places the landmarks of a 4000 px photo within a few % of the eye distance of the whole-photo path (samples 1-6 scaled up)', async () => {
    const runtime = await loadFaceApi();
    const figures: string[] = [];
    const measured: [string, number, number][] = [];
    for (let n = 1; n <= 6; n++) {
      const photo = await phonePhoto(n);
      const before = await wholePhotoPath(photo);
      const now = await prepareFace(runtime, photo, OPTIONS);
      if (!now.ok) throw new Error(now.message);
      // both in the old frame's coordinates: the new frame's rect is the old one moved by the landmarks' difference
      const old = toFrame(before.landmarks, before.rect);
      const eye = eyeDistance(old);
      const shiftNow = centre(now.landmarks, 0, 68);
      const shiftOld = centre(old, 0, 68);
      const scale = eyeDistance(now.landmarks) / eye;
      const distances = now.landmarks.map(
        (p, k) =>
          Math.hypot((p.x - shiftNow.x) / scale - (old[k]!.x - shiftOld.x), (p.y - shiftNow.y) / scale - (old[k]!.y - shiftOld.y)) / eye,
      );
      const max = Math.max(...distances);
      const mean = distances.reduce((a, b) => a + b, 0) / distances.length;
      figures.push(`sample${n} ${(100 * mean).toFixed(1)} / ${(100 * max).toFixed(1)}`);
      measured.push([`sample${n}`, mean, max]);
    }
    console.log(`      landmarks against the whole-photo path, mean / max % of the eye distance: ${figures.join(', ')}`);
    for (const [name, mean, max] of measured) {
      expect(mean, `${name} mean`).to.be.below(0.05);
      expect(max, `${name} max`).to.be.below(0.1);
    }
  });

  it('frames the same picture as cropping the whole decoded photo (PSNR over 40 dB; 37 when shrunk on load)', async () => {
    const face = await sharp(samplePhoto(3)).extract({ left: 470, top: 230, width: 430, height: 470 }).resize(160).toBuffer();
    const offCentre = await sharp({ create: { width: 1800, height: 1000, channels: 3, background: { r: 120, g: 130, b: 140 } } })
      .composite([{ input: face, left: 1350, top: 420 }])
      .jpeg()
      .toBuffer();
    const phone = await phonePhoto(3);
    const cases: [string, Uint8Array, number, number][] = [
      ...[1, 2, 3, 4, 5, 6].map((n): [string, Uint8Array, number, number] => [`sample${n} 640x640`, samplePhoto(n), 640, 640]),
      ['sample4 480x640', samplePhoto(4), 480, 640],
      ['sample3 at 4000 px, 640x640', phone, 640, 640],
      ['sample3 at 4000 px, 160x160 (shrunk on load)', phone, 160, 160],
      // stored sideways / upside down / mirrored with the EXIF orientation that turns them upright
      ...(await Promise.all(
        [2, 3, 5, 6, 7, 8].map(async (o): Promise<[string, Uint8Array, number, number]> => [
          `sample3 at 4000 px stored with EXIF orientation ${o}, 480x640`,
          await storedAs(phone, o),
          480,
          640,
        ]),
      )),
      ['small face off-centre, 640x640 (padded)', offCentre, 640, 640],
    ];
    const figures: string[] = [];
    const measured: [string, number][] = [];
    for (const [name, bytes, width, height] of cases) {
      const before = await wholePhotoPath(bytes, width, height);
      const header = await imageHeader(bytes);
      const orientation = /EXIF orientation (\d)/.exec(name);
      expect(header.orientation, name).to.equal(orientation ? Number(orientation[1]) : 1);
      const framed = await decodeFrame(bytes, header, before.rect, width, height);
      const db = psnr(framed, before.framed);
      figures.push(`${name} ${db === Infinity ? 'identical' : `${db.toFixed(1)} dB`}`);
      measured.push([name, db]);
    }
    console.log(`      framed picture against the whole-photo crop: ${figures.join('; ')}`);
    // Measured: every region decode of an upright photo is pixel-identical (the same JPEG rows, the
    // same lanczos step); cut from a photo stored turned, then turned upright: 57.7-70.4 dB;
    // the photo shrunk on load 40.6 dB (39.0 from a 3840 px one: libjpeg's 1/2 DCT scaling, then
    // lanczos twice, down to a 160 px frame: the one case where what is decoded differs), so that
    // case is held to 37 dB. A frame cut one pixel off (rect.left + 1) reads ~35 dB and fails.
    for (const [name, db] of measured) expect(db, name).to.be.above(name.includes('shrunk') ? 37 : 40);
  });

  it('a large photo without a face, or one cut short after its header, fails cleanly in the detector thread, which then closes (no decode left running)', async () => {
    const renderer = new LandmarkAvatarRenderer({ faceCacheEntries: 0 });
    try {
      const empty = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: { r: 40, g: 120, b: 200 } } })
        .jpeg()
        .toBuffer();
      expect(await renderer.prepare(empty, '640x640').catch((err: unknown) => err)).to.be.instanceOf(NoFaceDetectedError);
      // the header reads (4000 px: the shrunk-copy path), the decode then fails
      const phone = await phonePhoto(3);
      const cut = await renderer.prepare(phone.subarray(0, phone.length >> 1), '640x640').catch((err: unknown) => err);
      expect(cut).to.be.instanceOf(InvalidParameterError);
      expect((cut as InvalidParameterError).param).to.equal('ref_image');
      // and a good one still works after them
      const ok = await renderer.preparePhoto(phone, '640x640');
      expect(ok.framed.width).to.equal(640);
    } finally {
      await renderer.close();
    }
  });
});
