import { videoFrameCount, type DrivingSpeech } from '@svc/core';
import { audioMouthTrack, loudness } from './audio-mouth-track.js';
import type { MouthShape } from './face-pose.js';
import { speechFeatures } from './speech-features.js';
import { visemeMouthTrack } from './viseme-track.js';

/** What a face's motion takes from the speech alone, per frame: its loudness and the mouth's shape. */
export interface SpeechMotion {
  frameCount: number;
  loud: number[];
  mouth: MouthShape[];
}

/** The speech's motion (the spectrum of every frame: cheap beside rendering, so computed once per speech); visemes from word timings when given. */
export function speechMotion(drive: DrivingSpeech, fps: number): SpeechMotion {
  const frameCount = videoFrameCount(drive.audio, fps);
  const features = speechFeatures(drive.audio, fps, frameCount);
  const fromAudio = audioMouthTrack(features);
  const mouth = drive.words && drive.words.length > 0 ? visemeMouthTrack(drive.words, fromAudio, fps) : fromAudio;
  return { frameCount, loud: loudness(features), mouth };
}

/**
 * Speech motions computed ahead (a stream's speech is ready before its face), by clip: the render
 * of that same clip takes its motion from here instead of computing it after the face. Held
 * weakly, so a clip that is never rendered (a refused request) costs nothing once dropped.
 */
export class SpeechMotionCache {
  private readonly byClip = new WeakMap<DrivingSpeech, SpeechMotion>();

  constructor(private readonly fps: number) {}

  /** The clip's motion: computed now, unless it was for this same clip before. */
  of(drive: DrivingSpeech): SpeechMotion {
    let motion = this.byClip.get(drive);
    if (!motion) {
      motion = speechMotion(drive, this.fps);
      this.byClip.set(drive, motion);
    }
    return motion;
  }
}
