import { PACKET_MS } from './rtp-audio-codec.js';

/** Silence packets sent at once to catch up after a short stall (more would flood the caller's jitter buffer). */
const MAX_CATCH_UP_PACKETS = 5;

/** The call's RTP stream, as the silence needs it (RtpMedia). */
interface SilenceWire {
  /** Packets go out now (the caller's first packet came, the call is not on hold). */
  readonly sending: boolean;
  /** When (performance.now()) the stream's next 20 ms slot starts; null before its first packet. */
  readonly nextSlotAt: number | null;
  sendSilence(): void;
}

/** The reply audio, as the silence needs it (G711ReplyTrack): while a reply plays, it owns the stream. */
interface ReplyWire {
  readonly playing: boolean;
  /** When (performance.now()) the playing reply's next frame is due. */
  readonly nextFrameAt: number;
}

/**
 * Fills the call's RTP stream with silence packets between replies, one per 20 ms slot, so that the
 * stream never stops while the call is answered: PBXs and trunks hang up a call whose RTP stops
 * (Asterisk's rtptimeout, FreeSWITCH's media timeout) and NAT bindings expire without traffic. It
 * wakes at each slot; while a reply plays it waits for the reply's next frame instead (the reply's
 * first frame leaves the moment it is written, never at this timer's pace). Nothing is sent while the
 * stream is not sending (before the caller's first packet, on hold).
 */
export class SilenceBetweenReplies {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;

  constructor(
    private readonly wire: SilenceWire,
    private readonly reply: ReplyWire,
  ) {}

  start(): void {
    if (!this.stopped && !this.timer) this.arm(PACKET_MS);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private wake(): void {
    this.timer = null;
    if (this.stopped) return;
    const now = performance.now();
    if (!this.wire.sending) return this.arm(PACKET_MS);
    if (this.reply.playing) return this.arm(this.reply.nextFrameAt - now + 1);
    for (let n = 0; n < MAX_CATCH_UP_PACKETS && (this.wire.nextSlotAt ?? now) <= now; n++) this.wire.sendSilence();
    const next = this.wire.nextSlotAt;
    this.arm(next !== null && next > now ? next - now : PACKET_MS);
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.wake(), Math.max(1, Math.ceil(ms)));
    this.timer.unref?.();
  }
}
