import { expect } from 'chai';
import { gaussianKernel } from '../src/edge-blur.js';
import type { PixelBox } from '../src/rgb-image.js';
import { softenPainted, softenScratch } from '../src/soften-painted.js';

const W = 120;
const H = 120;

/** A mid-grey frame with a black painted rectangle (coverage 255 inside it). */
function frameWith(box: PixelBox): { out: Uint8Array; mask: Uint8Array } {
  const out = new Uint8Array(W * H * 3).fill(150);
  const mask = new Uint8Array(W * H);
  for (let y = box.y0; y < box.y1; y++) {
    for (let x = box.x0; x < box.x1; x++) {
      out.fill(0, (y * W + x) * 3, (y * W + x) * 3 + 3);
      mask[y * W + x] = 255;
    }
  }
  return { out, mask };
}

describe('softenPainted: the painted pixels seen through the photo blur', () => {
  const kernel = gaussianKernel(2);

  it('softens the painted edge, leaves the frame away from it untouched', () => {
    const box = { x0: 40, y0: 50, x1: 80, y1: 70 };
    const { out, mask } = frameWith(box);
    softenPainted(out, W, H, mask, box, kernel, softenScratch());
    const at = (x: number, y: number): number => out[(y * W + x) * 3]!;
    // across the top edge the step is now a ramp: lighter just inside, darker just outside
    expect(at(60, 50)).to.be.within(40, 110);
    expect(at(60, 49)).to.be.within(40, 130);
    expect(at(60, 60)).to.be.below(10);
    // far from the paint, nothing moved
    expect(at(5, 5)).to.equal(150);
    expect(at(60, 80)).to.equal(150);
  });

  it('gives the same pixels with reused buffers as with fresh ones (a tall region after a wide one)', () => {
    const wide = { x0: 10, y0: 50, x1: 110, y1: 60 };
    const tall = { x0: 55, y0: 5, x1: 60, y1: 115 };
    const scratch = softenScratch();
    const first = frameWith(wide);
    softenPainted(first.out, W, H, first.mask, wide, kernel, scratch);
    const reused = frameWith(tall);
    softenPainted(reused.out, W, H, reused.mask, tall, kernel, scratch);
    const fresh = frameWith(tall);
    softenPainted(fresh.out, W, H, fresh.mask, tall, kernel, softenScratch());
    expect(Buffer.compare(reused.out, fresh.out)).to.equal(0);
  });
});
