import { FramePacer, type ReplyAudioPlayout, type ReplyAudioTrack } from '@svc/core';

/** G.711 is 8 kHz; one RTP packet carries 20 ms (the ptime every phone and PBX expects). */
const G711_RATE = 8000;
const FRAME_MS = 20;

/** Where a 20 ms frame goes (the call's RTP sender), with whether it starts a talk spurt. */
export type FrameSink = (frame: Int16Array, marker: boolean) => void;

/** The pacing timer on the event loop (unref'd: a call's audio never keeps the process alive). */
function realTimer(ms: number, fn: () => void): () => void {
  const t = setTimeout(fn, ms);
  t.unref?.();
  return () => clearTimeout(t);
}

/**
 * A phone call's outgoing audio (the core's ReplyAudioTrack): replies are synthesized at the call's
 * codec rate (8 kHz G.711, 48 kHz Opus) and handed to the sink one 20 ms frame at a time, in real
 * time, one response after another, by the core's FramePacer (the one WebRTC's track uses too).
 * Sending is the pacing, so what was sent is what the caller heard and a barge-in truncates at
 * `sentMs()`.
 */
export class G711ReplyTrack implements ReplyAudioTrack {
  private readonly pacer: FramePacer;

  constructor(
    sink: FrameSink,
    leadMs: number,
    now: () => number = () => performance.now(),
    /** The call's codec rate (48 kHz for an Opus call): the replies are synthesized at it. */
    readonly sampleRate: number = G711_RATE,
  ) {
    this.pacer = new FramePacer({
      format: { sampleRate, frameSamples: (sampleRate * FRAME_MS) / 1000 },
      leadSamples: Math.round((leadMs / 1000) * sampleRate),
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

  /** A reply's talk spurt is running: its frames, not silence, fill the call's stream. */
  get playing(): boolean {
    return this.pacer.talking;
  }

  /** When the running talk spurt's next frame is due (on the track's clock). */
  get nextFrameAt(): number {
    return this.pacer.wireMs;
  }

  /** Sends every frame that is due by now (the pacer's timer runs it; tests run it on their clock). */
  tick(): void {
    this.pacer.tick();
  }
}
