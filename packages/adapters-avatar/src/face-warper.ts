import { sampleBilinear } from './bilinear.js';
import { edgeBlur, gaussianKernel } from './edge-blur.js';
import { Eyelids } from './eyelids.js';
import { CurveTable, lipsBox, type FaceGeometry } from './face-geometry.js';
import type { FacePose } from './face-pose.js';
import { luminance, mouthPalette, mouthPixel, type MouthPalette } from './mouth-palette.js';
import type { PixelBox, RgbImage } from './rgb-image.js';
import { softenPainted, softenScratch, type SoftenScratch } from './soften-painted.js';

/** The widest mouth opening (lip to lip, at "aa"), as a fraction of the eye distance. */
export const MAX_OPENING = 0.36;
/** Share of the opening taken by the upper lip lifting; the jaw and lower lip take the rest. */
const UPPER_SHARE = 0.26;
/** The softness the painter's own one-pixel anti-aliasing already has (as a Gaussian sigma, px). */
const PAINTED_SIGMA = 0.5;

/** Below this the photo is as sharp as the painter's own one-pixel anti-aliasing: nothing to soften. */
const MIN_SOFTEN_SIGMA = 0.4;

/**
 * Renders one frame of the reference photo in a given pose by inverse mapping: every output pixel of
 * the head region asks where it comes from in the reference and samples it bilinearly; the rest of
 * the frame is copied untouched (the background never moves).
 *
 * Three smooth backward maps are composed per pixel:
 * - head: a small roll + translation about the neck, weighted by a soft elliptical mask so it fades
 *   out before the background;
 * - eyes: the upper-lid skin stretched down over the eye to the closure line (the eyeball is hidden,
 *   not squeezed), with a lash line;
 * - mouth, in the lips' own frame: the upper lip lifts, the lower lip and jaw drop (fading out below
 *   the chin into the neck and towards the jaw angles), the lips spread or round; the lens-shaped gap
 *   between the lips is painted as a mouth interior (dark cavity, upper teeth, tongue), never sampled
 *   from the closed lips, so lips are neither smeared nor doubled.
 * The painted pixels are then seen through the photo's own blur (softenPainted), so a small,
 * upscaled face does not get a sharp mouth pasted in.
 * All work is in typed arrays; one 640x640 frame costs a few milliseconds.
 */
export class FaceWarper {
  readonly width: number;
  readonly height: number;
  private readonly base: Uint8Array;
  private readonly headBox: PixelBox;
  private readonly headMask: Float32Array;
  private readonly rowSpans: Int32Array;
  private readonly mouthBox: PixelBox;
  private readonly eyelids: Eyelids;
  private readonly palette: MouthPalette;
  /** Below the chin the jaw's drop fades out over this many pixels (the neck). */
  private readonly neckFade: number;
  private readonly upperInner: CurveTable;
  private readonly lowerInner: CurveTable;
  private readonly chin: CurveTable;
  private readonly jawProfile: CurveTable;
  /** Where the lower lip's own drop has become the jaw's. */
  private readonly jawBlendEnd: number;
  /**
   * Whether the whole opening is painted (teeth included): for a closed mouth, or lips apart on a
   * dark gap. A photo that shows its teeth keeps them (they move with the upper jaw), so they are
   * never doubled by painted ones.
   */
  private readonly paintTeeth: boolean;
  /**
   * The Gaussian the painted interior is seen through (the photo's own edge blur around the lips,
   * less the painter's anti-aliasing), or null for a photo sharp enough to take it as painted.
   */
  private readonly softenKernel: Float32Array | null;

  /** Per frame pixel, how much of it was painted (0-255); only the painted box is ever non-zero. */
  private readonly paintedMask: Uint8Array;
  private readonly softenScratch: SoftenScratch = softenScratch();

  constructor(
    reference: RgbImage,
    private readonly geo: FaceGeometry,
  ) {
    this.width = reference.width;
    this.height = reference.height;
    this.base = reference.data;
    const { head, mouth } = geo;
    const maxDrop = MAX_OPENING * geo.eyeDistance * (1 - UPPER_SHARE);
    this.neckFade = Math.max(0.5 * mouth.halfWidth, 1.6 * maxDrop);

    const outer = 1.45;
    this.headBox = this.clip({
      x0: head.centre.x - head.radiusX * outer,
      y0: head.centre.y - head.radiusY * outer,
      x1: head.centre.x + head.radiusX * outer,
      y1: head.centre.y + head.radiusY * outer,
    });
    const bw = this.headBox.x1 - this.headBox.x0;
    const bh = this.headBox.y1 - this.headBox.y0;
    this.headMask = new Float32Array(bw * bh);
    for (let y = 0; y < bh; y++) {
      for (let x = 0; x < bw; x++) {
        const ex = (x + this.headBox.x0 - head.centre.x) / head.radiusX;
        const ey = (y + this.headBox.y0 - head.centre.y) / head.radiusY;
        const r = Math.sqrt(ex * ex + ey * ey);
        this.headMask[y * bw + x] = 1 - smoothstep(1, outer, r);
      }
    }
    // per row, the columns where the mask is not zero (the ellipse): the only pixels head motion moves
    this.rowSpans = new Int32Array(bh * 2);
    for (let y = 0; y < bh; y++) {
      let x0 = bw;
      let x1 = 0;
      for (let x = 0; x < bw; x++) {
        if (this.headMask[y * bw + x]! > 0) {
          x0 = Math.min(x0, x);
          x1 = x + 1;
        }
      }
      this.rowSpans[y * 2] = x0 + this.headBox.x0;
      this.rowSpans[y * 2 + 1] = x1 + this.headBox.x0;
    }

    // The mouth's region in frame coordinates: the local box (u across, v down) turned back.
    const u0 = -mouth.jawHalfWidth - 2;
    const u1 = mouth.jawHalfWidth + 2;
    const v0 = mouth.noseV - 2;
    const v1 = mouth.chinV + this.neckFade + maxDrop + 2;
    const corners = [
      [u0, v0],
      [u1, v0],
      [u0, v1],
      [u1, v1],
    ].map(([u, v]) => ({
      x: mouth.centre.x + u! * mouth.cos - v! * mouth.sin,
      y: mouth.centre.y + u! * mouth.sin + v! * mouth.cos,
    }));
    this.mouthBox = this.clip({
      x0: Math.min(...corners.map((p) => p.x)),
      y0: Math.min(...corners.map((p) => p.y)),
      x1: Math.max(...corners.map((p) => p.x)),
      y1: Math.max(...corners.map((p) => p.y)),
    });
    this.eyelids = new Eyelids(reference, geo.landmarks);
    this.palette = mouthPalette(reference, geo);
    const span = mouth.jawHalfWidth + 4;
    this.upperInner = new CurveTable(-span, span, (u) => mouth.upperInner.at(u));
    const parted = mouth.restGap >= 0.04 * geo.eyeDistance;
    const lowerEdge = parted ? lowerLipEdge(reference, geo) : null;
    this.lowerInner = new CurveTable(-span, span, (u) => mouth.lowerInner.at(u) + (lowerEdge?.at(u) ?? 0));
    this.chin = new CurveTable(-span, span, (u) => mouth.jaw.at(u));
    this.jawProfile = new CurveTable(-span, span, (u) => 1 - smoothstep(0.9 * mouth.halfWidth, mouth.jawHalfWidth, Math.abs(u)));
    this.jawBlendEnd = mouth.lowerLipV + 0.35 * (mouth.chinV - mouth.lowerLipV);
    this.paintTeeth = mouth.restGap < 0.04 * geo.eyeDistance || !showsTeeth(reference, geo);
    const photoSigma = edgeBlur(reference, lipsBox(geo));
    const sigma = Math.sqrt(Math.max(0, photoSigma * photoSigma - PAINTED_SIGMA * PAINTED_SIGMA));
    this.softenKernel = sigma >= MIN_SOFTEN_SIGMA ? gaussianKernel(sigma) : null;
    this.paintedMask = new Uint8Array(this.width * this.height);
  }

  /**
   * Writes the frame for `pose` into `out` (width*height*3 bytes). With `painted` (width*height
   * bytes), also says how much of each pixel is the painted mouth interior (0-255, before softening):
   * where to look when measuring it.
   */
  render(pose: FacePose, out: Uint8Array, painted?: Uint8Array): void {
    out.set(this.base);
    const { headBox, headMask, mouthBox } = this;
    const bw = headBox.x1 - headBox.x0;
    const { pivot } = this.geo.head;
    const cr = Math.cos(pose.headRoll) - 1;
    const sr = Math.sin(pose.headRoll);
    const mouthMoves = pose.open > 0.002 || pose.spread > 0.002 || pose.round > 0.002 || this.geo.mouth.restGap > 0.5;
    const blinking = pose.blink > 0.01;
    const headMoves = pose.headX !== 0 || pose.headY !== 0 || pose.headRoll !== 0;
    const src = { x: 0, y: 0, interior: -1 };
    const mouth = this.mouthFrame(pose);

    const mask = this.paintedMask;
    let px0 = this.width;
    let py0 = this.height;
    let px1 = 0;
    let py1 = 0;

    const eyes = this.eyelids.boxes;
    // without head motion only the mouth's and the eyes' boxes can change
    const y0 = headMoves ? headBox.y0 : Math.min(mouthBox.y0, eyes[0]!.y0, eyes[1]!.y0);
    const y1 = headMoves ? headBox.y1 : Math.max(mouthBox.y1, eyes[0]!.y1, eyes[1]!.y1);
    for (let y = Math.max(y0, headBox.y0); y < Math.min(y1, headBox.y1); y++) {
      const row = (y - headBox.y0) * 2;
      for (let x = this.rowSpans[row]!, xEnd = this.rowSpans[row + 1]!; x < xEnd; x++) {
        const w = headMask[(y - headBox.y0) * bw + x - headBox.x0]!;
        let qx = x;
        let qy = y;
        if (headMoves) {
          // forward motion of this point: R(p - pivot) + pivot + t - p; undo it, weighted
          const px = x - pivot.x;
          const py = y - pivot.y;
          qx = x - w * (cr * px - sr * py + pose.headX);
          qy = y - w * (sr * px + cr * py + pose.headY);
        }
        src.x = qx;
        src.y = qy;
        src.interior = -1;
        if (mouthMoves && qx >= mouthBox.x0 && qx < mouthBox.x1 && qy >= mouthBox.y0 && qy < mouthBox.y1) {
          this.mapMouth(qx, qy, mouth, src);
        } else if (blinking) {
          this.eyelids.map(qx, qy, pose.blink, src);
        }
        const o = (y * this.width + x) * 3;
        if (src.interior >= 0) {
          mask[o / 3] = 255 * this.paintInterior(mouth, src, out, o);
          if (x < px0) px0 = x;
          if (x >= px1) px1 = x + 1;
          if (y < py0) py0 = y;
          py1 = y + 1;
        } else if (src.x !== x || src.y !== y) {
          if (src.interior === -2) this.eyelids.paint(out, o);
          else this.sample(src.x, src.y, out, o);
        }
      }
    }
    painted?.fill(0);
    if (px1 <= px0) return;
    const box = { x0: px0, y0: py0, x1: px1, y1: py1 };
    if (this.softenKernel) softenPainted(out, this.width, this.height, mask, box, this.softenKernel, this.softenScratch);
    for (let y = py0; y < py1; y++) {
      const row = y * this.width;
      if (painted) painted.set(mask.subarray(row + px0, row + px1), row + px0);
      mask.fill(0, row + px0, row + px1);
    }
  }

  /** Per-frame mouth constants and lookup tables. */
  private mouthFrame(pose: FacePose): MouthFrame {
    const { mouth, eyeDistance } = this.geo;
    const opening = Math.max(0, Math.min(1, pose.open)) * MAX_OPENING * eyeDistance;
    const widthFactor = 1 + 0.1 * pose.spread - 0.22 * pose.round;
    const innerHalf = mouth.innerHalfWidth * widthFactor * (1 - 0.15 * pose.round);
    // an ellipse (power 0.5) for rounded lips, slimmer towards the corners for spread ones
    const power = 0.8 - 0.3 * pose.round;
    const mid = mouth.innerMid;
    const lens = new CurveTable(mid - innerHalf - 1, mid + innerHalf + 1, (u) => {
      const t = (u - mid) / innerHalf;
      return t * t < 1 ? Math.pow(1 - t * t, power) : 0;
    });
    const rest = mouth.restGap;
    const centreLift = UPPER_SHARE * Math.max(0, opening - rest);
    return {
      opening,
      widthFactor,
      innerHalf,
      lens,
      // the chin follows the centre of the lower lip
      jawDrop: opening - rest - centreLift,
      teeth: 0.1 * eyeDistance,
      lipFade: 0.04 * eyeDistance,
      paintTeeth: this.paintTeeth,
      u: 0,
      top: 0,
      bottom: 0,
    };
  }

  /**
   * Mouth backward map at frame point (qx, qy); sets src, or src.interior = 1 for a pixel of the
   * painted interior. In the lips' frame (u across, v down), per column: T and S are the inner edges
   * of the upper and lower lip in the photo (equal when it is closed). The wanted opening g (a lens
   * across the mouth) is made by lifting the upper lip (part of what exceeds the photo's own gap) and
   * moving the lower lip and jaw by J = g - gap - lift, which is negative when a photo with an open
   * mouth must close. Between the lips: the photo's own interior where it has one (it moves with the
   * upper jaw, teeth included), else the painted cavity, teeth and tongue.
   */
  private mapMouth(qx: number, qy: number, f: MouthFrame, src: { x: number; y: number; interior: number }): void {
    const m = this.geo.mouth;
    const dx = qx - m.centre.x;
    const dy = qy - m.centre.y;
    const u = dx * m.cos + dy * m.sin;
    const v = -dx * m.sin + dy * m.cos;
    if (v < m.noseV || u < -m.jawHalfWidth || u > m.jawHalfWidth) return;
    const a = m.halfWidth;
    const wu = u / (2 * a);
    const wv = v / (1.2 * a);
    // the lips' spread/rounding fades out before the nose, the jaw sides and the chin (no seams)
    const us = f.widthFactor === 1 ? u : u / (1 + (f.widthFactor - 1) * Math.exp(-(wu * wu + wv * wv)) * this.spreadFade(u, v));
    const upper = this.upperInner.at(us);
    const lower = this.lowerInner.at(us);
    const gap = lower - upper;
    const g = f.opening * f.lens.at(u);
    const lift = g > gap ? UPPER_SHARE * (g - gap) : 0;
    const lipDrop = g - gap - lift;
    let vs = v;
    if (v < upper - lift) {
      const reach = (upper - m.noseV) * 0.9;
      if (lift > 0 && reach > lift) vs = v + lift * clamp01((v - (upper - reach)) / (reach - lift));
    } else if (v < lower + lipDrop) {
      const vr = v + lift;
      if (!f.paintTeeth && vr < lower - 0.5 && gap > 1.5) {
        vs = vr; // the photo's own mouth interior, carried by the upper jaw
      } else {
        src.interior = 1;
        f.u = (u - m.innerMid) / f.innerHalf;
        f.top = f.paintTeeth ? v - (upper - lift) : Math.max(0, vr - lower);
        f.bottom = lower + lipDrop - v;
        // the inner edge of the lower lip, for anti-aliasing
        src.x = m.centre.x + us * m.cos - lower * m.sin;
        src.y = m.centre.y + us * m.sin + lower * m.cos;
        return;
      }
    } else {
      vs = v - this.jawDrop(us, v - this.jawDrop(us, v, f, lipDrop, lower), f, lipDrop, lower);
    }
    if (us === u && vs === v) return;
    src.x = m.centre.x + us * m.cos - vs * m.sin;
    src.y = m.centre.y + us * m.sin + vs * m.cos;
  }

  private spreadFade(u: number, v: number): number {
    const m = this.geo.mouth;
    const side = 1 - smoothstep(0.55 * m.jawHalfWidth, m.jawHalfWidth, Math.abs(u));
    const top = v < 0 ? smoothstep(m.noseV, 0.4 * m.noseV, v) : 1;
    const bottom = 1 - smoothstep(m.lowerLipV, m.chinV, v);
    return side * top * bottom;
  }

  /** How far the lower face at (u, v) has moved down: the lip's own drop at the lip, the jaw's below, fading into the neck. */
  private jawDrop(u: number, v: number, f: MouthFrame, lipDrop: number, lower: number): number {
    const m = this.geo.mouth;
    const jaw = f.jawDrop * this.jawProfile.at(u);
    const toJaw = smoothstep(lower, this.jawBlendEnd, v);
    const drop = lipDrop + (jaw - lipDrop) * toJaw;
    const chin = this.chin.at(u);
    return v <= chin ? drop : drop * (1 - smoothstep(chin, chin + this.neckFade, v));
  }

  /**
   * The painted inside of the mouth, in soft layers so no edge is a staircase, back to front:
   * - the cavity: darkest at the back and into the corners (the cheeks' shadow), in the shadow the
   *   upper teeth cast; along the lips, their inner surfaces in the lips' colour darkening into it
   *   (a lip never meets a black cavity in one step: that reads as a drawn outline);
   * - the tongue: a rounded hump rising from the lower lip once the mouth is open enough to see it,
   *   shaded from its lit tip to the throat, with a faint groove down its middle;
   * - the lower incisors' tips, only on a wide opening, just above the lower lip;
   * - the upper teeth hanging from the upper lip: separate teeth (darker gaps, narrower towards the
   *   corners), greyer at their translucent edges, shaded under the lip and towards the corners.
   */
  private paintInterior(f: MouthFrame, src: { x: number; y: number }, out: Uint8Array, o: number): number {
    const p = this.palette;
    const gapHeight = f.top + f.bottom;
    const au = Math.abs(f.u);
    const depth = f.top / Math.max(1, gapHeight); // 0 at the upper lip, 1 at the lower
    const teethHeight = f.paintTeeth ? Math.min(f.teeth, 0.5 * gapHeight) * Math.sqrt(Math.max(0, 1 - au * au)) : 0;
    // cavity
    const teethShadow = f.paintTeeth ? 1 - 0.35 * Math.exp(-Math.max(0, f.top - teethHeight) / 2.5) : 1;
    const c = (0.95 - 0.35 * au * au) * teethShadow * (0.85 + 0.3 * Math.abs(depth - 0.45));
    let r = p.cavity[0] * c;
    let g = p.cavity[1] * c;
    let b = p.cavity[2] * c;
    // the lips' inner surfaces, curving away into the mouth: lip colour darkening into the cavity
    // (below a photo's own interior, only the lower lip's: the upper edge is that interior's)
    const fromLip = f.paintTeeth ? Math.min(f.top, f.bottom) : f.bottom;
    const innerLip = 1 - smoothstep(0.3 * f.lipFade, 1.3 * f.lipFade, fromLip);
    r += (p.lip[0] - r) * innerLip;
    g += (p.lip[1] - g) * innerLip;
    b += (p.lip[2] - b) * innerLip;
    // tongue, fading in from a 4 px opening
    const visible = clamp01((gapHeight - 4) / 6);
    if (visible > 0) {
      const tu = f.u / 0.64;
      const tv = (depth - 1.12) / 0.55;
      const radius = Math.sqrt(tu * tu + tv * tv);
      const alpha = visible * (1 - smoothstep(0.8, 1, radius));
      if (alpha > 0) {
        // lit where the hump faces up and forward, darker towards the throat and the sides
        const lit = (0.62 + 0.38 * (1 - Math.min(1, radius))) * (1 + 0.12 * Math.exp(-(((radius - 0.62) / 0.1) ** 2)) * (tv < 0 ? 1 : 0));
        const groove = 1 - 0.1 * Math.exp(-((tu / 0.07) ** 2)) * clamp01(1 - radius);
        const k = lit * groove;
        r += (p.tongue[0] * k - r) * alpha;
        g += (p.tongue[1] * k - g) * alpha;
        b += (p.tongue[2] * k - b) * alpha;
      }
    }
    if (f.paintTeeth) {
      // lower incisors: their tips just above the lower lip, centre only, on a wide opening
      const lowerTeeth = 0.32 * f.teeth * clamp01((gapHeight - 1.6 * f.teeth) / f.teeth) * Math.sqrt(Math.max(0, 1 - (au / 0.5) ** 2));
      if (lowerTeeth > 0.5) {
        const alpha = clamp01(lowerTeeth - f.bottom + 0.5) * clamp01((0.5 - au) / 0.08) * 0.9;
        const shade = 0.72 * (1 - 0.4 * au) * toothGap(f.u * 1.6);
        r += (p.teeth[0] * shade - r) * alpha;
        g += (p.teeth[1] * shade - g) * alpha;
        b += (p.teeth[2] * shade - b) * alpha;
      }
      // upper teeth
      const alpha = clamp01(teethHeight - f.top + 0.5) * clamp01((0.86 - au) / 0.1);
      if (alpha > 0) {
        const underLip = 0.72 + 0.28 * Math.min(1, f.top / 2.5);
        const edge = 1 - 0.16 * smoothstep(0.55, 1, f.top / Math.max(1, teethHeight));
        const shade = (1 - 0.55 * au * au) * underLip * edge * toothGap(f.u);
        r += (p.teeth[0] * shade - r) * alpha;
        g += (p.teeth[1] * shade - g) * alpha;
        b += (p.teeth[2] * shade * (1 - 0.04 * edge) - b) * alpha;
      }
    }
    // anti-alias against the lips over one pixel
    const edge = Math.min(f.top, f.bottom);
    if (edge < 1) {
      this.sample(src.x, src.y, out, o);
      const k = Math.max(0, edge);
      out[o] = out[o]! * (1 - k) + r * k;
      out[o + 1] = out[o + 1]! * (1 - k) + g * k;
      out[o + 2] = out[o + 2]! * (1 - k) + b * k;
      return k;
    }
    out[o] = r;
    out[o + 1] = g;
    out[o + 2] = b;
    return 1;
  }

  /** Bilinear sample of the reference at (x, y) into out[o..o+2]. */
  private sample(x: number, y: number, out: Uint8Array, o: number): void {
    sampleBilinear(this.base, this.width, this.height, x, y, out, o);
  }

  private clip(b: PixelBox): PixelBox {
    return {
      x0: Math.max(0, Math.floor(b.x0)),
      y0: Math.max(0, Math.floor(b.y0)),
      x1: Math.min(this.width, Math.ceil(b.x1)),
      y1: Math.min(this.height, Math.ceil(b.y1)),
    };
  }
}

interface MouthFrame {
  /** The wanted lip-to-lip opening at the centre, px. */
  opening: number;
  widthFactor: number;
  innerHalf: number;
  /** Opening profile across the mouth, 1 at the centre, 0 at the corners. */
  lens: CurveTable;
  /** How far the chin moves down (negative: up, closing a photo's open mouth). */
  jawDrop: number;
  teeth: number;
  /** Over how many px the lips' inner surfaces darken into the cavity. */
  lipFade: number;
  paintTeeth: boolean;
  // the interior pixel being painted: u across (-1..1) and its distances to the lips
  u: number;
  top: number;
  bottom: number;
}

/**
 * How far below the landmarks' inner edge of the lower lip the photo's lower lip really starts,
 * per column u, for a photo whose lips are apart: the edge is moved down while the photo there is
 * still the dark gap (darker than 60 % of the lip's body), by at most half the lip; smoothed across
 * the mouth and tapered to nothing at the corners (no notch where it stops). The landmark model
 * places that edge a few pixels inside the gap on some faces (most on tilted ones); the strip of gap
 * above the lip would then move with the jaw and draw a dark line along the lower lip inside the
 * open mouth.
 */
function lowerLipEdge(image: RgbImage, geo: FaceGeometry): CurveTable {
  const m = geo.mouth;
  const lum = (u: number, v: number): number => luminance(mouthPixel(image, geo, u, v));
  const from = Math.floor(m.innerMid - m.innerHalfWidth);
  const shifts = Array.from({ length: Math.ceil(2 * m.innerHalfWidth) + 1 }, (_, k) => {
    const u = from + k;
    const lower = m.lowerInner.at(u);
    const thickness = Math.max(0, m.lowerLipV - lower);
    const dark = 0.6 * lum(u, lower + 0.6 * thickness);
    let v = lower;
    while (v + 0.5 <= lower + 0.5 * thickness && lum(u, v) < dark) v += 0.5;
    return v - lower;
  });
  const reach = 3;
  return new CurveTable(from, from + shifts.length - 1, (u) => {
    const k = Math.round(u - from);
    let sum = 0;
    let n = 0;
    for (let j = Math.max(0, k - reach); j <= Math.min(shifts.length - 1, k + reach); j++) {
      sum += shifts[j]!;
      n++;
    }
    const t = Math.abs(u - m.innerMid) / m.innerHalfWidth;
    return n > 0 ? (sum / n) * (1 - smoothstep(0.6, 0.95, t)) : 0;
  });
}

/** True when the photo's own lip gap is bright (teeth), judged against the skin below the mouth. */
function showsTeeth(image: RgbImage, geo: FaceGeometry): boolean {
  const m = geo.mouth;
  const lum = (u: number, v: number): number => luminance(mouthPixel(image, geo, u, v));
  let gap = 0;
  let skin = 0;
  let n = 0;
  for (let u = m.innerMid - m.innerHalfWidth * 0.5; u <= m.innerMid + m.innerHalfWidth * 0.5; u += 1) {
    gap += lum(u, (m.upperInner.at(u) + m.lowerInner.at(u)) / 2);
    skin += lum(u, m.lowerLipV + 0.3 * (m.chinV - m.lowerLipV));
    n++;
  }
  return gap / n > 0.8 * (skin / n);
}

/**
 * Shading between the upper teeth (u across the opening, -1..1; 1 = none): the gap between the
 * central incisors, then incisor, canine and premolar edges, each tooth narrower than the last
 * (the arch turns away towards the corners).
 */
const TOOTH_EDGES = [0, 0.2, 0.36, 0.5, 0.62, 0.72];
function toothGap(u: number): number {
  const a = Math.abs(u);
  let d = 1;
  for (const e of TOOTH_EDGES) d = Math.min(d, Math.abs(a - e));
  const width = 0.018;
  return d < width ? 0.86 + 0.14 * (d / width) ** 2 : 1;
}

function smoothstep(e0: number, e1: number, x: number): number {
  const t = clamp01((x - e0) / (e1 - e0));
  return t * t * (3 - 2 * t);
}

function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}
