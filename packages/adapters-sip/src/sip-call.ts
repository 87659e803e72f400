import type { Logger, OpusCodec, RealtimeOutput, RealtimeServerEvent, SessionEnding, SessionMedia } from '@svc/core';
import { G711ReplyTrack } from './g711-reply-track.js';
import { RtpMedia } from './rtp-media.js';
import { SilenceBetweenReplies } from './silence-between-replies.js';
import type { AudioOffer } from './sdp.js';

/** The session side of a call (RealtimeSessionEngine implements it). */
export interface SipCallSession {
  handle(event: unknown): Promise<void>;
  /** A frame that is not an event (a joined WebSocket's); the engine answers with its error. */
  rejectFrame?(message: string): void | Promise<void>;
  appendInputSamples(samples: Int16Array): Promise<void>;
  transportClosed(): void;
}

/** Why a call ended, beyond the session's own endings. */
export type SipCallEnding =
  SessionEnding | 'hangup' | 'transferred' | 'cancelled' | 'no_ack' | 'media_timeout' | 'key_revoked' | 'server_shutdown';

export interface SipCallOptions {
  /** How far reply audio may be queued ahead of what RTP sent. */
  audioLeadMs: number;
  /** A call from which no RTP came for this long, while not held, is gone (its BYE was lost, or the phone died). */
  mediaTimeoutMs: number;
  logger: Logger;
  /** The Opus codec, when the call negotiated Opus. */
  opus?: OpusCodec | null;
}

/**
 * One phone call's media and session: the caller's RTP decoded into the session's input, the
 * session's replies sent as RTP (G711ReplyTrack), the session's events kept out of the call (a
 * phone has no data channel; they are logged at debug). It is the session's RealtimeOutput: when
 * the session ends, the call ends (the server then sends BYE).
 */
export class SipCall implements RealtimeOutput {
  readonly media: SessionMedia;
  readonly rtp: RtpMedia;
  private readonly track: G711ReplyTrack;
  private readonly silence: SilenceBetweenReplies;
  private session: SipCallSession | null = null;
  private lastHeardAt = performance.now();
  private watchdog: ReturnType<typeof setInterval> | null = null;
  private ended = false;
  private readonly endedListeners: Array<(ending: SipCallEnding, reason: string) => void> = [];
  private readonly eventListeners: Array<(event: RealtimeServerEvent) => void> = [];
  private keypresses = 0;

  constructor(
    readonly id: string,
    offer: AudioOffer,
    trustedMediaSources: Set<string>,
    private readonly options: SipCallOptions,
  ) {
    this.rtp = new RtpMedia(
      offer,
      trustedMediaSources,
      {
        audio: (samples) => void this.session?.appendInputSamples(samples),
        heard: () => (this.lastHeardAt = performance.now()),
        keypress: ({ key }) => this.keypressed(key),
      },
      options.opus ?? null,
    );
    const rate = this.rtp.sampleRate;
    this.track = new G711ReplyTrack((frame, marker) => this.rtp.sendFrame(frame, marker), options.audioLeadMs, undefined, rate);
    this.media = { inputSampleRate: rate, replyTrack: this.track };
    this.silence = new SilenceBetweenReplies(this.rtp, this.track);
  }

  /** Starts the session on the call and the media watchdog. */
  start(session: SipCallSession): void {
    this.session = session;
    this.lastHeardAt = performance.now();
    this.watchdog = setInterval(
      () => {
        // a held call is silent by design (many phones send nothing on hold): the timeout counts from the resume
        if (this.rtp.held) this.lastHeardAt = performance.now();
        else if (performance.now() - this.lastHeardAt > this.options.mediaTimeoutMs)
          this.end('media_timeout', `no RTP for ${this.options.mediaTimeoutMs} ms`);
      },
      Math.min(1000, this.options.mediaTimeoutMs),
    );
    this.watchdog.unref?.();
    this.silence.start();
  }

  /** Hears the end of the call once; the returned function stops listening. */
  onEnded(listener: (ending: SipCallEnding, reason: string) => void): () => void {
    return listen(this.endedListeners, listener);
  }

  /** Hears the session's events (a WebSocket joined with `?call_id=`, tests); the returned function stops listening. */
  onEvent(listener: (event: RealtimeServerEvent) => void): () => void {
    return listen(this.eventListeners, listener);
  }

  /** A client event from a joined WebSocket, to the call's session. */
  handle(event: unknown): Promise<void> {
    return this.session?.handle(event) ?? Promise.resolve();
  }

  /** A joined WebSocket's frame that is not an event (not JSON, binary): the session answers with its error. */
  rejectFrame(message: string): void | Promise<void> {
    return this.session?.rejectFrame?.(message);
  }

  /** RealtimeOutput: a phone has no event channel; errors are worth a log line. */
  send(event: RealtimeServerEvent): void {
    for (const listener of [...this.eventListeners]) listener(event);
    if (event.type === 'error') this.options.logger.info({ callId: this.id, error: event.error }, 'realtime session error on a SIP call');
    else this.options.logger.debug({ callId: this.id, type: event.type }, 'realtime event on a SIP call');
  }

  /**
   * A key the caller pressed, as OpenAI's SIP calls report it: `input_audio_buffer.dtmf_event_received`
   * with `event` (the key) and `received_at` (Unix seconds). It goes to the call's event listeners,
   * not to the session: the model does not hear keys, the application does.
   */
  private keypressed(key: string): void {
    if (this.ended) return;
    this.send({
      type: 'input_audio_buffer.dtmf_event_received',
      event_id: `event_${this.id}_dtmf_${++this.keypresses}`,
      event: key,
      received_at: Math.floor(Date.now() / 1000),
    });
  }

  /** RealtimeOutput: the session ended (its own limits, an error): the call ends. */
  close(ending: SessionEnding, reason: string): void {
    this.end(ending, reason);
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** Ends the call once: media stops, the session is told, listeners learn why. */
  end(ending: SipCallEnding, reason: string): void {
    if (this.ended) return;
    this.ended = true;
    if (this.watchdog) clearInterval(this.watchdog);
    this.silence.stop();
    this.track.close();
    this.rtp.close();
    this.session?.transportClosed();
    for (const listener of [...this.endedListeners]) listener(ending, reason);
  }
}

function listen<T>(listeners: T[], listener: T): () => void {
  listeners.push(listener);
  return () => {
    const i = listeners.indexOf(listener);
    if (i >= 0) listeners.splice(i, 1);
  };
}
