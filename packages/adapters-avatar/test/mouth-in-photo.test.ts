import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { sharp } from '../src/decode-image.js';
import { edgeBlur } from '../src/edge-blur.js';
import { loadFaceApi } from '../src/face-api-runtime.js';
import { faceGeometry, lipsBox } from '../src/face-geometry.js';
import { REST_POSE } from '../src/face-pose.js';
import { FaceWarper } from '../src/face-warper.js';
import { prepareFace } from '../src/prepare-face.js';
import type { RgbImage } from '../src/rgb-image.js';
import { samplePhoto } from './avatar-measures.js';
import {
  faceShadow,
  paintedBox,
  paintedColours,
  paintedOutline,
  paintedRimDarkness,
  photoBetweenLipsDarkness,
  photoLipLine,
} from './mouth-measures.js';

const require = createRequire(import.meta.url);
// the package's exports map has no './package.json': its assets folder is found from its main file (dist/)
const HUMAN_ASSETS = join(dirname(require.resolve('@vladmandic/human')), '..', 'assets');

/** A photo for the test, and whether it shows its own teeth (then none are painted over them). */
interface TestPhoto {
  name: string;
  ownTeeth: boolean;
  bytes: () => Promise<Uint8Array>;
}

const jpeg = async (pipeline: ReturnType<ReturnType<typeof sharp>>): Promise<Uint8Array> =>
  new Uint8Array(await pipeline.jpeg({ quality: 92 }).toBuffer());

/**
 * face-api's six demo photos (faces of 150-300 px in group photos, sample4 the smallest and tilted),
 * and photos derived from the installed ones (nothing downloaded): a face three times smaller
 * (sample6 at a third of its size: the face about 60 px across), two tilted by 20-22 degrees, and a
 * man with a goatee (a 100 px face from a screenshot shipped with @vladmandic/human).
 */
const PHOTOS: TestPhoto[] = [
  ...[1, 2, 3, 4, 5, 6].map((n) => ({ name: `sample${n}`, ownTeeth: n === 1 || n === 3, bytes: async () => samplePhoto(n) })),
  { name: 'sample6 at 1/3 (small face)', ownTeeth: false, bytes: async () => jpeg(sharp()(samplePhoto(6)).resize(640)) },
  {
    name: 'sample2 tilted 22 degrees',
    ownTeeth: false,
    bytes: async () => jpeg(sharp()(samplePhoto(2)).rotate(-22, { background: '#808080' })),
  },
  {
    name: 'sample5 tilted 20 degrees',
    ownTeeth: true,
    bytes: async () => jpeg(sharp()(samplePhoto(5)).rotate(20, { background: '#808080' })),
  },
  {
    name: 'goatee (human screenshot)',
    ownTeeth: false,
    bytes: async () =>
      jpeg(sharp()(readFileSync(join(HUMAN_ASSETS, 'screenshot-facematch.jpg'))).extract({ left: 835, top: 270, width: 135, height: 135 })),
  },
];

const round = (o: unknown): string => JSON.stringify(o, (_k, v: unknown) => (typeof v === 'number' ? Math.round(v * 100) / 100 : v));

describe('FaceWarper: the painted mouth takes its colour, shading, softness and size from the photo', function () {
  this.timeout(120_000);

  for (const photo of PHOTOS) {
    it(`${photo.name}: no outline darker than the photo's lip line, as soft as its lips, teeth and cavity in its light`, async () => {
      const face = await prepareFace(await loadFaceApi(), await photo.bytes(), {
        width: 640,
        height: 640,
        detectMaxSide: 1024,
        minFaceScore: 0.4,
      });
      if (!face.ok) throw new Error(face.message);
      const geo = faceGeometry(face.landmarks);
      const warper = new FaceWarper(face.framed, geo);
      const data = new Uint8Array(640 * 640 * 3);
      const painted = new Uint8Array(640 * 640);
      warper.render({ ...REST_POSE, open: 1 }, data, painted);
      const frame: RgbImage = { data, width: 640, height: 640 };

      const photoFigures = {
        betweenLips: photoBetweenLipsDarkness(face.framed, geo),
        lipLine: photoLipLine(face.framed, geo),
        shadow: faceShadow(face.framed, geo, 0.01),
        blur: edgeBlur(face.framed, lipsBox(geo)),
      };
      const outline = paintedOutline(frame, painted, geo);
      const colours = paintedColours(frame, painted, face.framed, geo);
      const mouth = {
        rim: paintedRimDarkness(frame, painted, geo, 2, photo.ownTeeth),
        outline: outline.outline,
        height: outline.height / geo.eyeDistance,
        blur: edgeBlur(frame, paintedBox(painted, 640)),
        ...colours,
      };
      const figures = `${photo.name}: photo ${round(photoFigures)}, mouth ${round(mouth)}`;
      if (process.env.SVC_AVATAR_REPORT) console.log(`      ${figures}`);

      // the opening is there, as tall as the face's own scale makes it (a photo's own open mouth
      // is kept, moving with the upper jaw: only the rest is painted)
      expect(outline.columns, figures).to.be.at.least(20);
      if (!photo.ownTeeth) expect(mouth.height, figures).to.be.within(0.2, 0.45);
      // where the interior meets the lips, nothing much darker than the photo between its own lips
      // (the lip line where they meet, its own open mouth where they part)
      expect(mouth.rim, figures).to.be.at.least(0.7 * photoFigures.betweenLips);
      // no dark line drawn round the opening deeper than the photo's own lip line
      expect(mouth.outline, figures).to.be.at.most(photoFigures.lipLine + 10);
      // as soft as the photo's lips (a pasted, sharp mouth in a soft face reads as a sticker)
      expect(mouth.blur, figures).to.be.at.least(0.75 * photoFigures.blur);
      // the cavity no darker than the face's own darkest shadows
      expect(colours.cavity, figures).to.be.at.least(0.75 * photoFigures.shadow);
      if (!photo.ownTeeth) {
        // painted teeth in the photo's light: its colour cast, less strong than the skin's, not grey
        expect(colours.teethCastCosine, figures).to.be.at.least(0.85);
        expect(colours.teethCast, figures).to.be.within(0.3, 0.85);
        // brighter than the cavity by far, but no glowing teeth in a dim face
        expect(colours.teethOverSkin, figures).to.be.within(0.75, 1.4);
      }
    });
  }
});
