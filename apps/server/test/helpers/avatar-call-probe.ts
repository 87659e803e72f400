import type { Page } from 'playwright-core';

/** A box in video pixels. */
export interface PixelBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** What the page recorded of a call's picture and sound (page clock: performance.now()). */
export interface AvatarCallRecording {
  /** One entry per frame the video element presented: when, and how far the mouth region is from its first look. */
  frames: { at: number; rtp: number; mouth: number }[];
  /** The reply audio's level every 5 ms, as the page's audio graph got it. */
  audio: { at: number; rms: number }[];
  /**
   * The audio receiver's latest played frame every 10 ms (getSynchronizationSources: when, page
   * clock, and its RTP timestamp): with the frames' RTP timestamps this gives the receiver's
   * audio/video offset exactly, once the sender maps both RTP clocks to its media clock.
   */
  audioSync: { at: number; rtp: number }[];
  /** getStats() of the inbound video and audio, once a second. */
  stats: { at: number; framesDecoded: number; framesDropped: number; framesPerSecond: number; audioSamples: number }[];
}

// Runs in the browser (no DOM library in the server's compilation).
declare const document: { querySelector(selector: string): unknown };

/**
 * Starts recording in the page: every presented frame of `video` (requestVideoFrameCallback, the
 * frame drawn and its mouth box compared with the first frame's: mean absolute difference of the
 * green channel), the level of the stream's audio every 5 ms (a WebAudio analyser), and the
 * inbound-rtp stats of `pc` once a second. `pcExpression` and `videoSelector` name them in the page.
 */
export async function startAvatarRecording(
  page: Page,
  options: { pcExpression: string; videoSelector: string; mouth: PixelBox },
): Promise<void> {
  await page.evaluate(({ pcExpression, videoSelector, mouth }) => {
    type Any = any;
    const w = globalThis as Any;
    const pc = new Function(`return ${pcExpression}`)() as Any;
    const video = document.querySelector(videoSelector) as Any;
    const rec = { frames: [] as Any[], audio: [] as Any[], audioSync: [] as Any[], stats: [] as Any[] };
    const audioReceiver = pc.getReceivers().find((r: Any) => r.track.kind === 'audio');
    w.__avatarRecording = rec;
    const canvas = new w.OffscreenCanvas(video.videoWidth || 640, video.videoHeight || 640);
    const ctx = canvas.getContext('2d', { willReadFrequently: true });
    let rest: Uint8ClampedArray | null = null;
    const onFrame = (_now: number, meta: Any) => {
      if (canvas.width !== video.videoWidth && video.videoWidth > 0) {
        canvas.width = video.videoWidth;
        canvas.height = video.videoHeight;
      }
      ctx.drawImage(video, 0, 0, canvas.width, canvas.height);
      const px = ctx.getImageData(mouth.x0, mouth.y0, mouth.x1 - mouth.x0, mouth.y1 - mouth.y0).data as Uint8ClampedArray;
      rest ??= new Uint8ClampedArray(px);
      let d = 0;
      for (let i = 1; i < px.length; i += 4) d += Math.abs(px[i]! - rest[i]!);
      rec.frames.push({ at: meta.expectedDisplayTime, rtp: meta.rtpTimestamp ?? 0, mouth: d / (px.length / 4) });
      video.requestVideoFrameCallback(onFrame);
    };
    video.requestVideoFrameCallback(onFrame);
    const stream = video.srcObject as Any;
    const audio = new w.AudioContext();
    const analyser = audio.createAnalyser();
    analyser.fftSize = 256;
    audio.createMediaStreamSource(stream).connect(analyser);
    const buffer = new Float32Array(analyser.fftSize);
    w.__avatarTimers = [
      setInterval(() => {
        const source = audioReceiver?.getSynchronizationSources()[0];
        if (!source) return;
        // Chromium gives this on the epoch clock; the frames' times are on the page's performance clock
        const at = Math.abs(source.timestamp - performance.now()) < 1e6 ? source.timestamp : source.timestamp - performance.timeOrigin;
        const last = rec.audioSync[rec.audioSync.length - 1];
        if (!last || last.rtp !== source.rtpTimestamp) rec.audioSync.push({ at, rtp: source.rtpTimestamp });
      }, 10),
      setInterval(() => {
        analyser.getFloatTimeDomainData(buffer);
        let s = 0;
        for (let i = buffer.length - 240 > 0 ? buffer.length - 240 : 0; i < buffer.length; i++) s += buffer[i]! * buffer[i]!;
        rec.audio.push({ at: performance.now(), rms: Math.sqrt(s / Math.min(240, buffer.length)) });
      }, 5),
      setInterval(async () => {
        const report = await pc.getStats();
        const entry = { at: performance.now(), framesDecoded: 0, framesDropped: 0, framesPerSecond: 0, audioSamples: 0 };
        report.forEach((s: Any) => {
          if (s.type !== 'inbound-rtp') return;
          if (s.kind === 'video')
            Object.assign(entry, {
              framesDecoded: s.framesDecoded ?? 0,
              framesDropped: s.framesDropped ?? 0,
              framesPerSecond: s.framesPerSecond ?? 0,
            });
          if (s.kind === 'audio') entry.audioSamples = s.totalSamplesReceived ?? 0;
        });
        rec.stats.push(entry);
      }, 1000),
    ];
  }, options);
}

export async function stopAvatarRecording(page: Page): Promise<AvatarCallRecording> {
  return page.evaluate(() => {
    const w = globalThis as unknown as { __avatarRecording: AvatarCallRecording; __avatarTimers: ReturnType<typeof setInterval>[] };
    for (const t of w.__avatarTimers) clearInterval(t);
    return w.__avatarRecording;
  });
}

/** Decoded frames per second over [from, to) (page clock), from the getStats samples. */
export function decodedFps(rec: AvatarCallRecording, from: number, to: number): number {
  const inside = rec.stats.filter((s) => s.at >= from && s.at <= to);
  if (inside.length < 2) return NaN;
  const a = inside[0]!;
  const b = inside[inside.length - 1]!;
  return ((b.framesDecoded - a.framesDecoded) * 1000) / (b.at - a.at);
}

/** Stretches of sound: [start, end) where the audio level stayed above `threshold` with gaps under `gapMs`. */
export function soundSpans(rec: AvatarCallRecording, threshold = 0.01, gapMs = 400): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (const s of rec.audio) {
    if (s.rms < threshold) continue;
    const last = spans[spans.length - 1];
    if (last && s.at - last[1] < gapMs) last[1] = s.at;
    else spans.push([s.at, s.at]);
  }
  return spans;
}

/**
 * The lag (ms, > 0: the picture after the sound) at which the mouth's motion best follows the
 * audio's level, and the correlation there: both on a 10 ms grid of the page clock, the audio
 * smoothed over 40 ms (a frame), the mouth held between frames.
 */
export function audioVideoOffset(rec: AvatarCallRecording, from: number, to: number, maxLagMs = 400): { lagMs: number; r: number } {
  const bins = Math.floor((to - from) / 10);
  if (bins < 50) return { lagMs: NaN, r: NaN };
  const level = new Float64Array(bins);
  for (const s of rec.audio) {
    const k = Math.floor((s.at - from) / 10);
    if (k >= 0 && k < bins) level[k] = Math.max(level[k]!, s.rms);
  }
  const smooth = Float64Array.from(level, (_, k) => {
    let sum = 0;
    let n = 0;
    for (let j = k - 2; j <= k + 2; j++) {
      if (j < 0 || j >= bins) continue;
      sum += level[j]!;
      n++;
    }
    return sum / n;
  });
  const mouth = new Float64Array(bins);
  const frames = rec.frames.filter((f) => f.at >= from - 100 && f.at < to);
  let fi = 0;
  let current = frames[0]?.mouth ?? 0;
  for (let k = 0; k < bins; k++) {
    const t = from + k * 10;
    while (fi < frames.length && frames[fi]!.at <= t) current = frames[fi++]!.mouth;
    mouth[k] = current;
  }
  const corr = (lag: number): number => {
    let n = 0;
    let sx = 0;
    let sy = 0;
    let sxx = 0;
    let syy = 0;
    let sxy = 0;
    for (let k = 0; k < bins; k++) {
      const j = k - lag;
      if (j < 0 || j >= bins) continue;
      const x = mouth[k]!;
      const y = smooth[j]!;
      n++;
      sx += x;
      sy += y;
      sxx += x * x;
      syy += y * y;
      sxy += x * y;
    }
    const cov = sxy / n - (sx / n) * (sy / n);
    const vx = sxx / n - (sx / n) ** 2;
    const vy = syy / n - (sy / n) ** 2;
    return vx > 0 && vy > 0 ? cov / Math.sqrt(vx * vy) : 0;
  };
  let best = { lagMs: 0, r: -Infinity };
  for (let lag = -maxLagMs / 10; lag <= maxLagMs / 10; lag++) {
    const r = corr(lag);
    if (r > best.r) best = { lagMs: lag * 10, r };
  }
  return best;
}

/**
 * The receiver's audio/video offset (ms, > 0: a moment of the media is shown later than it is
 * heard), from RTP timestamps: each presented frame and each played audio frame mapped back to the
 * sender's media clock by `mediaTimeOf`; (page time - media time) is compared between the two
 * streams (the clocks' own offset cancels). Medians over [from, to), with the spread of the video's.
 */
export function rtpAudioVideoOffset(
  rec: AvatarCallRecording,
  mediaTimeOf: (kind: 'audio' | 'video', rtp: number) => number | null,
  from: number,
  to: number,
): { offsetMs: number; videoFrames: number; audioFrames: number; videoSpreadMs: number } {
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] ?? NaN;
  const video = rec.frames.filter((f) => f.at >= from && f.at < to && f.rtp).map((f) => f.at - mediaTimeOf('video', f.rtp)!);
  const audio = rec.audioSync.filter((a) => a.at >= from && a.at < to).map((a) => a.at - mediaTimeOf('audio', a.rtp)!);
  const v = median(video);
  const sorted = [...video].sort((a, b) => a - b);
  const spread = sorted.length > 4 ? sorted[Math.floor(sorted.length * 0.9)]! - sorted[Math.floor(sorted.length * 0.1)]! : NaN;
  return { offsetMs: v - median(audio), videoFrames: video.length, audioFrames: audio.length, videoSpreadMs: spread };
}

/** Frames per second the server sent for media moments in [fromMs, toMs) (its media clock). */
export function sentFps(sent: readonly { atMs: number }[], fromMs: number, toMs: number): number {
  return (sent.filter((f) => f.atMs >= fromMs && f.atMs < toMs).length * 1000) / (toMs - fromMs);
}

/**
 * At the receiver, the reply's start: when the page first played audio of media moment
 * `audioAtMs` or later (the reply's first packet, from getSynchronizationSources) and when it
 * presented the first frame whose 40 ms include that moment (both mapped back to the server's media
 * clock by `mediaTimeOf`). NaN where the recording has neither.
 */
export function firstFrameAfterFirstAudio(
  rec: AvatarCallRecording,
  mediaTimeOf: (kind: 'audio' | 'video', rtp: number) => number | null,
  audioAtMs: number,
  frameMs = 40,
): { heardAt: number; shownAt: number; shownAfterHeardMs: number } {
  const heardAt = rec.audioSync.find((a) => mediaTimeOf('audio', a.rtp)! >= audioAtMs - 1)?.at ?? NaN;
  const shownAt = rec.frames.find((f) => f.rtp && mediaTimeOf('video', f.rtp)! + frameMs > audioAtMs)?.at ?? NaN;
  return { heardAt, shownAt, shownAfterHeardMs: shownAt - heardAt };
}
