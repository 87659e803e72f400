import { expect } from 'chai';
import { sharp } from '../src/decode-image.js';
import { edgeBlur } from '../src/edge-blur.js';
import type { RgbImage } from '../src/rgb-image.js';

const SIZE = 160;

/** A light disc on a dark ground (edges in every direction), blurred by libvips with a known sigma. */
async function blurredDisc(sigma: number): Promise<RgbImage> {
  const data = new Uint8Array(SIZE * SIZE * 3);
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++)
      data.fill(Math.hypot(x - SIZE / 2, y - SIZE / 2) < SIZE / 3 ? 190 : 70, (y * SIZE + x) * 3, (y * SIZE + x) * 3 + 3);
  }
  if (sigma === 0) return { data, width: SIZE, height: SIZE };
  const out = await sharp()(data, { raw: { width: SIZE, height: SIZE, channels: 3 } })
    .blur(sigma)
    .raw()
    .toBuffer();
  return { data: new Uint8Array(out), width: SIZE, height: SIZE };
}

describe('edgeBlur: the photo softness the painted mouth is matched to', () => {
  for (const sigma of [1, 2, 3, 5]) {
    it(`reads a ${sigma} px Gaussian blur back within 20 %`, async () => {
      const found = edgeBlur(await blurredDisc(sigma), { x0: 0, y0: 0, x1: SIZE, y1: SIZE });
      expect(found).to.be.within(0.8 * sigma, 1.2 * sigma);
    });
  }

  it('reads a pixel-sharp edge as under a pixel, and a region too small to measure as 1 px', async () => {
    expect(edgeBlur(await blurredDisc(0), { x0: 0, y0: 0, x1: SIZE, y1: SIZE })).to.be.below(1);
    expect(edgeBlur(await blurredDisc(3), { x0: 10, y0: 10, x1: 14, y1: 40 })).to.equal(1);
  });
});
