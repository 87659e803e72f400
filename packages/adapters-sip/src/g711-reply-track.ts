import { FramePacer, type ReplyAudioPlayout, type ReplyAudioTrack } from '@svc/core';

/** G.711 is 8 kHz; one RTP packet carries 20 ms (the ptime every phone and PBX expects). */
export const G711_RATE = 8000;
export const FRAME_MS = 20;
export const FRAME_SAMPLES = (G711_RATE * FRAME_MS) / 1000;
const G711_FRAMES = { sampleRate: G711_RATE, frameSamples: FRAME_SAMPLES };

/** Where a frame of 160 samples goes (the call's RTP sender), with whether it starts a talk spurt. */
export type FrameSink = (frame: Int16Array, marker: boolean) => void;

/** The pacing timer on the event loop (unref'd: a call's audio never keeps the process alive). */
function realTimer(ms: number, fn: () => void): () => void {
  const t = setTimeout(fn, ms);
  t.unref?.();
  return () => clearTimeout(t);
}

/**
 * A phone call's outgoing audio (the core's ReplyAudioTrack): replies are synthesized at 8 kHz and
 * handed to the sink one 20 ms frame at a time, in real time, one response after another, by the
 * core's FramePacer (the one WebRTC's track uses too). Sending is the pacing, so what was sent is
 * what the caller heard and a barge-in truncates at `sentMs()`.
 */
export class G711ReplyTrack implements ReplyAudioTrack {
  readonly sampleRate = G711_RATE;
  private readonly pacer: FramePacer;

  constructor(sink: FrameSink, leadMs: number, now: () => number = () => performance.now()) {
    this.pacer = new FramePacer({
      format: G711_FRAMES,
      leadSamples: Math.round((leadMs / 1000) * G711_RATE),
      clock: { now, setTimer: realTimer },
      send: (frame, marker) => sink(frame, marker),
    });
  }

  open(): ReplyAudioPlayout {
    return this.pacer.open();
  }

  close(): void {
    this.pacer.close();
  }

  /** Sends every frame that is due by now (the pacer's timer runs it; tests run it on their clock). */
  tick(): void {
    this.pacer.tick();
  }
}
