import type { EncodedVideoFrame, VideoFrameSink } from '@svc/core';
import { RtpHeader, RtpPacket } from 'werift';
import { packetizeH264 } from './h264-packetizer.js';
import type { RtpPacketSink } from './rtp-audio-track.js';

/** The RTP clock of video (RFC 6184). */
export const VIDEO_CLOCK_RATE = 90000;

/**
 * The call's outgoing H.264 track (the live avatar): each access unit packetized (STAP-A / FU-A),
 * stamped with the media-clock moment it is shown (90 kHz) and sent at once; the LiveAvatarVideo
 * pump hands a frame over at that very moment, so the RTP timestamp and the wall time of sending
 * agree and werift's sender reports (which pair the last packet's timestamp with its sending time)
 * map video to wall time as the audio's do.
 */
export class RtpVideoTrack implements VideoFrameSink {
  private sequence = Math.floor(Math.random() * 0x10000);
  private readonly timestampBase = Math.floor(Math.random() * 0x100000000);
  private readonly origin: number;
  framesSent = 0;
  packetsSent = 0;
  bytesSent = 0;

  constructor(
    private readonly sink: RtpPacketSink,
    private readonly payloadType: number,
    now: number,
  ) {
    this.origin = now;
  }

  /** The media-clock moment an RTP timestamp of this track stands for. */
  mediaTimeOf(rtpTimestamp: number): number {
    return this.origin + (((rtpTimestamp - this.timestampBase) >>> 0) / VIDEO_CLOCK_RATE) * 1000;
  }

  send(frame: EncodedVideoFrame, atMs: number): void {
    const timestamp = (this.timestampBase + Math.round(((atMs - this.origin) * VIDEO_CLOCK_RATE) / 1000)) >>> 0;
    const payloads = packetizeH264(frame.nalUnits);
    payloads.forEach((payload, i) => {
      const header = new RtpHeader({
        payloadType: this.payloadType,
        sequenceNumber: this.sequence,
        timestamp,
        marker: i === payloads.length - 1,
      });
      this.sequence = (this.sequence + 1) & 0xffff;
      this.packetsSent++;
      this.bytesSent += payload.length;
      void Promise.resolve(this.sink.sendRtp(new RtpPacket(header, Buffer.from(payload.buffer, payload.byteOffset, payload.length)))).catch(
        () => undefined,
      );
    });
    this.framesSent++;
  }
}
