// @test-tier slow: renders avatar frames
import { expect } from 'chai';
import { LandmarkAvatarRenderer, detectFaces, loadFaceApi, type RgbImage } from '../src/index.js';
import { concatAudio, eyeBox, librivoxClip, median, mouthJawBox, psnrOutside, samplePhoto } from './avatar-measures.js';

const FPS = 25;

/**
 * Blinks counted from the pixels of the rendered eye regions: the mean absolute difference of both
 * eyes' boxes from the first frame, minus its running median over half a second (which takes out
 * the slow head motion); a blink is a run of frames more than 3 grey levels above it.
 */
function countBlinks(eyeChange: readonly number[]): { count: number; durations: number[] } {
  const bump = eyeChange.map((d, k) => d - median(eyeChange.slice(Math.max(0, k - 6), k + 7)));
  const durations: number[] = [];
  for (let k = 0; k < bump.length; k++) {
    if (bump[k]! <= 3) continue;
    // the run above 3 grey levels is one blink if it peaks above 3.5; its length is taken where it
    // is above 1.5 (the lid's first and last frames move less)
    let end = k;
    while (end + 1 < bump.length && bump[end + 1]! > 3) end++;
    const peak = Math.max(...bump.slice(k, end + 1));
    let from = k;
    let to = end;
    while (from > 0 && bump[from - 1]! > 1.5) from--;
    while (to + 1 < bump.length && bump[to + 1]! > 1.5) to++;
    if (peak > 3.5) durations.push((to - from + 1) / FPS);
    k = to;
  }
  return { count: durations.length, durations };
}

describe('LandmarkAvatarRenderer life: identity outside the mouth, blinks (measured on output frames)', function () {
  this.timeout(180000);
  const renderer = new LandmarkAvatarRenderer();
  after(() => renderer.close());

  it('stays the reference person outside the mouth/jaw box and blinks 15-25 times a minute, 100-300 ms each', async () => {
    // 13.4 s of real speech with pauses
    const audio = concatAudio(16000, librivoxClip('0870').samples, 0.5, librivoxClip('0890').samples, 0.5);
    const avatar = await renderer.prepare(samplePhoto(5), '640x640');
    let first: RgbImage | null = null;
    let jaw = { x0: 0, y0: 0, x1: 0, y1: 0 };
    let eyes: { x0: number; y0: number; x1: number; y1: number }[] = [];
    const psnr: number[] = [];
    const eyeChange: number[] = [];
    for await (const f of avatar.render({ audio })) {
      const frame = { data: f.rgb, width: f.width, height: f.height };
      if (!first) {
        first = frame;
        const faces = await detectFaces(await loadFaceApi(), frame);
        const lm = faces.sort((a, b) => Math.abs(a.box.x + a.box.width / 2 - 320) - Math.abs(b.box.x + b.box.width / 2 - 320))[0]!
          .landmarks;
        jaw = mouthJawBox(lm, 0.1 * (lm[45]!.x - lm[36]!.x));
        eyes = [eyeBox(lm, 36, 42, 0.4), eyeBox(lm, 42, 48, 0.4)];
      }
      psnr.push(psnrOutside(first, frame, jaw));
      let sum = 0;
      let n = 0;
      for (const e of eyes) {
        for (let y = Math.round(e.y0); y < e.y1; y++) {
          for (let x = Math.round(e.x0); x < e.x1; x++) {
            const i = (y * frame.width + x) * 3 + 1;
            sum += Math.abs(frame.data[i]! - first.data[i]!);
            n++;
          }
        }
      }
      eyeChange.push(sum / n);
    }
    const seconds = eyeChange.length / FPS;
    // identity: only the head's small motion and the blinks change what is outside the mouth and jaw
    if (process.env.SVC_AVATAR_REPORT) console.log(`      median PSNR ${median(psnr).toFixed(1)} dB, min ${Math.min(...psnr).toFixed(1)}`);
    expect(median(psnr), `median PSNR ${median(psnr).toFixed(1)} dB`).to.be.at.least(32);
    expect(Math.min(...psnr)).to.be.at.least(25);
    // and the head does move a little (it is not a still photo with a mouth)
    expect(median(psnr)).to.be.below(60);

    const blinks = countBlinks(eyeChange);
    const perMinute = (blinks.count * 60) / seconds;
    if (process.env.SVC_AVATAR_REPORT)
      console.log(`      blinks ${perMinute.toFixed(1)}/min, durations ${JSON.stringify(blinks.durations)}`);
    expect(perMinute, JSON.stringify(blinks)).to.be.within(13, 27);
    for (const d of blinks.durations) expect(d, JSON.stringify(blinks)).to.be.within(0.08, 0.32);
  });
});
