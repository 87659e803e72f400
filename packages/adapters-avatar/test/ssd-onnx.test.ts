// @test-tier slow: runs two face detectors many times to compare their CPU
import { expect } from 'chai';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { decodeImage, downscale } from '../src/decode-image.js';
import { loadFaceApi } from '../src/face-api-runtime.js';
import { detectLargestFace } from '../src/face-detection.js';
import { samplePhoto } from './avatar-measures.js';

const MB = 1048576;
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Runs detector-heap-worker.ts in a fresh thread: tfjs's WASM heap after preparing the photos. */
function heapAfter(photos: Uint8Array[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./detector-heap-worker.js', import.meta.url), { workerData: { photos } });
    worker.once('message', (m: { heapBytes: number }) => {
      resolve(m.heapBytes);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

/** face-api's SSD on onnxruntime (ssd-onnx.ts) against face-api's own tfjs pass, on its six sample photos. */
describe('SSD face detector on onnxruntime (face-api weights)', function () {
  this.timeout(240_000);

  it('finds the faces face-api finds (same scores, boxes within half a pixel), with the same landmarks, in a fraction of the CPU', async () => {
    const runtime = await loadFaceApi();
    const { faceapi, tf } = runtime;
    // face-api's own detector, loaded anew (the runtime's weights went to onnxruntime).
    const reference = new faceapi.SsdMobilenetv1();
    await reference.loadFromDisk(join(dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json')), 'model'));
    const options = new faceapi.SsdMobilenetv1Options({ minConfidence: 0.4, maxResults: 20 });
    const cpu = { tfjs: [] as number[], onnx: [] as number[] };
    for (let n = 1; n <= 6; n++) {
      const { image } = await downscale(await decodeImage(samplePhoto(n)), 1024);
      const tensor = tf.tensor3d(image.data, [image.height, image.width, 3], 'int32');
      let expected;
      try {
        const started = cpuMs();
        expected = await reference.locateFaces(tensor, options);
        if (n > 1) cpu.tfjs.push(cpuMs() - started); // the first pass of each warms its kernels
      } finally {
        tensor.dispose();
      }
      const started = cpuMs();
      const found = await runtime.ssd.locate(image, 0.4, 20);
      if (n > 1) cpu.onnx.push(cpuMs() - started);
      expect(found.length, `sample${n}: faces`).to.equal(expected.length).and.to.be.above(0);
      found.forEach((d, i) => {
        const o = expected[i]!;
        expect(d.score, `sample${n} face ${i} score`).to.be.closeTo(o.score, 1e-3);
        for (const k of ['x', 'y', 'width', 'height'] as const) expect(d.box[k], `sample${n} face ${i} ${k}`).to.be.closeTo(o.box[k], 0.5);
      });
      // The largest face's landmarks, as withFaceLandmarks() gives them from face-api's own box.
      const largest = [...expected].sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height)[0]!;
      const whole = tf.tensor3d(image.data, [image.height, image.width, 3], 'int32');
      const [crop] = await faceapi.extractFaceTensors(whole, [largest]);
      const reference68 = (await faceapi.nets.faceLandmark68Net.detectLandmarks(crop!)).positions.map((p) => ({
        x: p.x + largest.box.x,
        y: p.y + largest.box.y,
      }));
      crop!.dispose();
      whole.dispose();
      const ours = (await detectLargestFace(runtime, image, 0.4))!.landmarks;
      const worst = Math.max(...ours.map((p, i) => Math.hypot(p.x - reference68[i]!.x, p.y - reference68[i]!.y)));
      expect(worst, `sample${n}: largest landmark difference (px)`).to.be.below(1);
    }
    console.log(
      `      detector CPU per photo, median of samples 2-6: face-api tfjs ${Math.round(median(cpu.tfjs))} ms, onnxruntime ${Math.round(median(cpu.onnx))} ms`,
    );
    expect(median(cpu.onnx)).to.be.below(0.6 * median(cpu.tfjs));
  });

  it("keeps the detector thread's WebAssembly heap small: tfjs only runs the landmark net (face-api's SSD pass grew it to 230 MB)", async () => {
    const heap = await heapAfter([1, 2, 3, 4, 5, 6].map((n) => new Uint8Array(samplePhoto(n))));
    console.log(`      tfjs WASM heap after six photos: ${Math.round(heap / MB)} MB`);
    expect(heap / MB).to.be.below(64);
  });
});
