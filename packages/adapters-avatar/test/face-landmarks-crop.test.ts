// @test-tier slow: runs face detection on photos
import { expect } from 'chai';
import { decodeImage, downscale } from '../src/decode-image.js';
import { loadFaceApi } from '../src/face-api-runtime.js';
import { detectLargestFace } from '../src/face-detection.js';
import { samplePhoto } from './avatar-measures.js';

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/**
 * The landmark net is given only the face's crop as a tensor (not the whole photo, then sliced by
 * face-api's extractFaceTensors): the same pixels must give the very same 68 points, so the video's
 * frames do not change.
 */
describe('Face landmarks from the crop alone', function () {
  this.timeout(120_000);

  it('gives exactly the landmarks of face-api extractFaceTensors + detectLandmarks on the same box (samples 1-6), for less CPU', async () => {
    const runtime = await loadFaceApi();
    const { faceapi, tf } = runtime;
    const cpu = { whole: 0, crop: 0 };
    for (let n = 1; n <= 6; n++) {
      const { image } = await downscale(await decodeImage(samplePhoto(n)), 1024);
      let started = cpuMs();
      const face = (await detectLargestFace(runtime, image, 0.4))!;
      if (n > 1) cpu.crop += cpuMs() - started;
      // the same box through face-api's own crop of the whole picture
      started = cpuMs();
      const [box] = await runtime.ssd
        .locate(image, 0.4, 20)
        .then((all) => all.sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height));
      const relative = new faceapi.Rect(
        box!.box.x / image.width,
        box!.box.y / image.height,
        box!.box.width / image.width,
        box!.box.height / image.height,
      );
      const whole = tf.tensor3d(image.data, [image.height, image.width, 3], 'int32');
      const [crop] = await faceapi.extractFaceTensors(whole, [
        new faceapi.FaceDetection(1, relative, { width: image.width, height: image.height }),
      ]);
      const expected = (await faceapi.nets.faceLandmark68Net.detectLandmarks(crop!)).positions.map((p) => ({
        x: p.x + box!.box.x,
        y: p.y + box!.box.y,
      }));
      crop!.dispose();
      whole.dispose();
      if (n > 1) cpu.whole += cpuMs() - started;
      expect(face.landmarks, `sample${n}`).to.deep.equal(expected);
    }
    console.log(
      `      detector + landmarks CPU, samples 2-6: whole-photo tensor ${Math.round(cpu.whole)} ms, crop only ${Math.round(cpu.crop)} ms`,
    );
  });
});
