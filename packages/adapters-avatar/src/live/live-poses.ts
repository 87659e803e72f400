import { loudnessOf, loudnessPeak, mouthShapeOf } from '../audio-mouth-track.js';
import { blinkClosure, blinkSchedule, type Blink } from '../blinks.js';
import type { FacePose, MouthShape } from '../face-pose.js';
import { headMotionAt, speechEnvelope, type HeadOffset } from '../head-motion.js';
import { speechFeatures } from '../speech-features.js';
import { SpeechTimeline } from './speech-timeline.js';

/** Loudness is judged against the reply audio of the last this many seconds. */
const LEVEL_HISTORY_S = 20;
/** Blinks are scheduled this far ahead, then the schedule is extended (it is the same prefix). */
const BLINK_HORIZON_S = 60;

/**
 * The pose of a live face at any moment of a call, from the reply audio scheduled so far: the same
 * motion model as the rendered videos (mouth from the audio's energy and spectrum, blinks, sway and
 * a nod with the speech) computed frame by frame instead of over a whole clip. A frame needs the
 * audio up to one frame after it (the mouth is smoothed over its neighbours, without delay), which
 * the transport schedules ahead of playback.
 */
export class LivePoses {
  readonly speech = new SpeechTimeline();
  private readonly head: (t: number, e: number) => HeadOffset;
  private blinks: Blink[] = [];
  private blinkHorizon = 0;
  /** RMS of each frame-long block of the audio received, for the loudness reference. */
  private levels: { atMs: number; rms: number }[] = [];
  private peak: number | null = null;
  private originMs: number | null = null;

  constructor(
    private readonly fps: number,
    eyeDistance: number,
    private readonly seed: number,
  ) {
    this.head = headMotionAt(eyeDistance, seed);
  }

  speak(samples: Int16Array, sampleRate: number, atMs: number): void {
    this.speech.push(samples, sampleRate, atMs);
    const block = Math.round(sampleRate / this.fps);
    for (let i = 0; i + block <= samples.length; i += block) {
      let sum = 0;
      for (let j = i; j < i + block; j++) sum += samples[j]! * samples[j]!;
      this.levels.push({ atMs: atMs + (i / sampleRate) * 1000, rms: Math.sqrt(sum / block) / 32768 });
    }
    const horizon = atMs - LEVEL_HISTORY_S * 1000;
    if (this.levels.length > 0 && this.levels[0]!.atMs < horizon) this.levels = this.levels.filter((l) => l.atMs >= horizon);
    this.peak = null;
  }

  cut(atMs: number): void {
    this.speech.cut(atMs);
  }

  /** The pose of the frame shown at `atMs` (frames are [atMs, atMs + 1/fps)). */
  at(atMs: number): FacePose {
    this.originMs ??= atMs;
    const t = (atMs - this.originMs) / 1000;
    const frameMs = 1000 / this.fps;
    const rate = this.speech.sampleRate;
    // loudness of the frames from 6 before to 6 after this one (the nod's envelope), mouth from the
    // features of this frame and its two neighbours
    const radius = Math.round(this.fps * 0.25);
    const first = atMs - radius * frameMs;
    const frameSamples = rate / this.fps;
    const samples = this.speech.window(first, Math.round((2 * radius + 1) * frameSamples));
    this.peak ??= loudnessPeak(this.levels.map((l) => l.rms));
    const loud = Array.from({ length: 2 * radius + 1 }, (_, k) =>
      loudnessOf(rms(samples, Math.round(k * frameSamples), Math.round((k + 1) * frameSamples)), this.peak!),
    );
    // the spectrum only for the mouth's three frames
    const near = samples.subarray(Math.round((radius - 1) * frameSamples), Math.round((radius + 2) * frameSamples));
    const features = speechFeatures({ samples: near, sampleRate: rate }, this.fps, 3);
    const shape = (k: number): MouthShape => mouthShapeOf(features[k]!, loud[radius - 1 + k]!);
    const [a, s, b] = [shape(0), shape(1), shape(2)];
    const head = this.head(t, speechEnvelope(loud, radius, radius));
    this.speech.forget(atMs);
    return {
      open: (a.open + 2 * s.open + b.open) / 4,
      spread: (a.spread + 2 * s.spread + b.spread) / 4,
      round: (a.round + 2 * s.round + b.round) / 4,
      blink: blinkClosure(this.blinksUntil(t + 1), t + 0.5 / this.fps),
      headX: head.x,
      headY: head.y,
      headRoll: head.roll,
    };
  }

  private blinksUntil(t: number): Blink[] {
    if (t > this.blinkHorizon - 1) {
      this.blinkHorizon = t + BLINK_HORIZON_S;
      this.blinks = blinkSchedule(this.blinkHorizon, this.seed);
    }
    const now = t - 1;
    while (this.blinks.length > 0 && this.blinks[0]!.start + this.blinks[0]!.duration < now) this.blinks.shift();
    return this.blinks;
  }
}

function rms(samples: Int16Array, from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += samples[i]! * samples[i]!;
  return to > from ? Math.sqrt(sum / (to - from)) / 32768 : 0;
}
