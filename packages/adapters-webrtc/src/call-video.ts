import {
  LiveAvatarVideo,
  type Clock,
  type LiveAvatar,
  type LiveVideoEncoder,
  type LiveVideoStream,
  type Logger,
  type SentVideoFrame,
  type SessionVideoOutput,
} from '@svc/core';
import { CallVideoFigures, type CallVideoStats } from './call-video-figures.js';
import type { RtpAudioTrack, ScheduledAudioListener } from './rtp-audio-track.js';
import type { RtpVideoTrack } from './rtp-video-track.js';

/** The GOP of the live encoder (FfmpegLiveH264Encoder's default 2 s): keyframe requests restart it at most this often. */
const KEYFRAME_RESTART_MS = 2000;

export interface CallVideoOptions {
  encoder: LiveVideoEncoder;
  clock: Clock;
  /** How long before its time a frame is made; reply audio starts this much after it is written. */
  leadMs: number;
  logger: Logger;
}

/**
 * The video of a call (the core's SessionVideoOutput): the avatar the session shows, its frames
 * made on the media clock (LiveAvatarVideo), encoded and sent on the H.264 track; the reply
 * audio's samples reach the avatar with the moment they play (RtpAudioTrack.listen), so the mouth
 * speaks what the listener hears, and a cleared playout (barge-in) closes it where the audio
 * stopped. Frames start once the call is connected (before that werift drops packets, and the
 * first keyframe with them). The call's figures (frames sent, skipped, late; each reply's first
 * frame after its first audio) are read with `stats()`.
 */
export class CallVideo implements SessionVideoOutput, ScheduledAudioListener {
  private avatar: LiveAvatar | null = null;
  private running: { video: LiveAvatarVideo; stream: LiveVideoStream; avatar: LiveAvatar } | null = null;
  private connected = false;
  private closed = false;
  private startedAt = 0;
  private readonly figures = new CallVideoFigures();

  constructor(
    private readonly audio: RtpAudioTrack,
    private readonly track: RtpVideoTrack,
    private readonly options: CallVideoOptions,
  ) {}

  show(avatar: LiveAvatar | null): void {
    if (this.closed || avatar === this.avatar) return;
    this.stopFrames();
    this.avatar = avatar;
    this.audio.listen(avatar ? this : null, avatar ? this.options.leadMs : 0);
    if (avatar && this.connected) this.startFrames(avatar);
  }

  /** ScheduledAudioListener: reply audio for the avatar's mouth (noted for the first-frame figure). */
  speak(samples: Int16Array, sampleRate: number, atMs: number): void {
    this.figures.audioScheduled(atMs, (samples.length / sampleRate) * 1000, this.options.clock.now());
    this.avatar?.speak(samples, sampleRate, atMs);
  }

  cut(atMs: number): void {
    this.figures.audioCut(atMs);
    this.avatar?.cut(atMs);
  }

  /** The media-clock moment a video RTP timestamp stands for. */
  mediaTimeOf(rtpTimestamp: number): number {
    return this.track.mediaTimeOf(rtpTimestamp);
  }

  /** Frames sent, skipped and late so far, and each reply's first frame after its first audio. */
  stats(): CallVideoStats {
    return this.figures.snapshot(this.running?.video.stats);
  }

  /**
   * The receiver lost a keyframe's worth of picture (RTCP PLI). libx264 behind a pipe cannot be
   * told to make a keyframe now, so the frames restart on a fresh encoder, whose first frame is
   * one: the picture recovers within a frame or two instead of at the next keyframe (up to 2 s).
   * At most once per KEYFRAME_RESTART_MS, so a lossy link never restarts more often than the GOP.
   */
  keyframeRequested(): void {
    const avatar = this.running?.avatar;
    if (!avatar || this.options.clock.now() - this.startedAt < KEYFRAME_RESTART_MS) return;
    this.options.logger.info({}, 'keyframe requested (PLI): live avatar encoder restarted');
    this.stopFrames();
    this.startFrames(avatar);
  }

  /** The peer connection is up: frames can flow. */
  onConnected(): void {
    this.connected = true;
    if (this.avatar && !this.running && !this.closed) this.startFrames(this.avatar);
  }

  close(): void {
    this.closed = true;
    this.stopFrames();
    this.audio.listen(null);
    this.avatar = null;
  }

  private startFrames(avatar: LiveAvatar): void {
    const stream = this.options.encoder.open({ width: avatar.width, height: avatar.height, fps: avatar.fps });
    const periodMs = 1000 / avatar.fps;
    const onSent = (frame: SentVideoFrame): void => this.figures.frameSent(frame, periodMs);
    const video = new LiveAvatarVideo(avatar, stream, this.track, {
      clock: this.options.clock,
      leadMs: this.options.leadMs,
      logger: this.options.logger,
      onSent,
    });
    this.running = { video, stream, avatar };
    this.startedAt = this.options.clock.now();
    video.start();
    this.options.logger.info(
      { width: avatar.width, height: avatar.height, fps: avatar.fps, leadMs: this.options.leadMs },
      'live avatar video started',
    );
  }

  private stopFrames(): void {
    const running = this.running;
    if (!running) return;
    this.running = null;
    running.video.close();
    running.stream.close();
    this.figures.runEnded(running.video.stats);
    const { framesSent, framesSkipped, framesLate, renderP50Ms, encodeP50Ms, sendLagP95Ms, replies } = this.figures.snapshot();
    this.options.logger.info(
      {
        framesSent,
        framesSkipped,
        framesLate,
        renderP50Ms,
        encodeP50Ms,
        sendLagP95Ms,
        firstReplyFrameMs: replies.map((r) => r.frameAfterAudioMs),
        packets: this.track.packetsSent,
        bytes: this.track.bytesSent,
      },
      'live avatar video stopped',
    );
  }
}
