import { apiErrorOf } from './api.js';
import { micConstraints } from './mic-capture.js';

/** Level (RMS 0..1) of a stream, read on demand from a WebAudio analyser. */
export class LevelMeter {
  private readonly analyser: AnalyserNode;
  private readonly buffer: Float32Array<ArrayBuffer>;

  constructor(ctx: AudioContext, stream: MediaStream) {
    this.analyser = ctx.createAnalyser();
    this.analyser.fftSize = 1024;
    this.buffer = new Float32Array(this.analyser.fftSize);
    ctx.createMediaStreamSource(stream).connect(this.analyser);
  }

  level(): number {
    this.analyser.getFloatTimeDomainData(this.buffer);
    let sum = 0;
    for (const v of this.buffer) sum += v * v;
    return Math.sqrt(sum / this.buffer.length);
  }
}

export interface RealtimeCallHandlers {
  onEvent(event: { type: string; [field: string]: any }): void;
  /** The call ended (the server closed it, the network went away, or close()). */
  onClose(reason: string): void;
}

export interface RealtimeCallOptions {
  /**
   * Receive the live avatar's video here: the offer gets a receive-only video transceiver and
   * the element shows the call's stream (muted: the reply's audio plays from the call's player).
   */
  video?: HTMLVideoElement;
  /**
   * The session configuration, sent with the offer (multipart `session`) so the call starts
   * configured. An inline photo for `avatar.ref_image` must go this way: data channel messages
   * are capped at 256 KB by the browser.
   */
  session?: Record<string, unknown>;
}

/**
 * The reply's first sound as soon as it arrives: asks the receiver's jitter buffer for the least
 * delay (`jitterBufferTarget` 0 ms, or the older `playoutDelayHint`, in seconds). A preference, not
 * a setting: the buffer still grows with the jitter it measures, so a bad network costs delay, not
 * gaps. Chromium treats 0 as its default minimum (a no-op there); browsers that honour the hint
 * below their default start the reply sooner.
 */
function playAtOnce(receiver: RTCRtpReceiver): void {
  const hints = receiver as unknown as Record<string, unknown>;
  if ('jitterBufferTarget' in receiver) hints.jitterBufferTarget = 0;
  else if ('playoutDelayHint' in receiver) hints.playoutDelayHint = 0;
}

/**
 * A realtime session over WebRTC, as OpenAI's browser flow does it: the microphone as an Opus
 * track (with the browser's echo cancellation, noise suppression and gain control, so the agent
 * does not hear itself on speakers), a data channel `oai-events` for the JSON events, the offer
 * POSTed to /v1/realtime/calls with the ephemeral key, the reply played from the remote track.
 */
export class RealtimeCall {
  private constructor(
    private readonly pc: RTCPeerConnection,
    private readonly channel: RTCDataChannel,
    readonly mic: MediaStream,
    readonly remote: Promise<MediaStream>,
    private readonly player: HTMLAudioElement,
    readonly callId: string | null,
    /** Says the call ended (once): the handlers' onClose. */
    private readonly end: (reason: string) => void,
  ) {}

  static async open(secret: string, handlers: RealtimeCallHandlers, options: RealtimeCallOptions = {}): Promise<RealtimeCall> {
    if (!navigator.mediaDevices?.getUserMedia)
      throw new Error('This browser gives no microphone access here (it needs https or localhost).');
    const mic = await navigator.mediaDevices.getUserMedia({ audio: micConstraints('call') });
    // Muted until the microphone button is pressed (the track still flows, as silence).
    for (const t of mic.getAudioTracks()) t.enabled = false;
    const pc = new RTCPeerConnection();
    const channel = pc.createDataChannel('oai-events');
    const { video, session } = options;
    const player = new Audio();
    player.autoplay = true;
    const remote = new Promise<MediaStream>((resolve) => {
      pc.ontrack = (e) => {
        const stream = e.streams[0] ?? new MediaStream([e.track]);
        if (e.track.kind === 'video') {
          // The server sends the video in the reply audio's stream (one msid): the browser keeps them in sync.
          video!.muted = true;
          video!.srcObject = stream;
          void video!.play().catch(() => undefined);
          return;
        }
        playAtOnce(e.receiver);
        player.srcObject = stream;
        void player.play().catch(() => undefined);
        resolve(stream);
      };
    });
    pc.addTrack(mic.getAudioTracks()[0]!, mic);
    // The video m-line after the audio one: a server without the live avatar rejects it (port 0),
    // and Chromium refuses an answer whose first BUNDLE m-line is rejected ("The m= section with
    // mid='1' should be rejected") when the video comes first.
    if (video) pc.addTransceiver('video', { direction: 'recvonly' });
    let closed = false;
    const end = (reason: string) => {
      if (closed) return;
      closed = true;
      handlers.onClose(reason);
    };
    channel.onmessage = (m) => handlers.onEvent(JSON.parse(String(m.data)));
    channel.onclose = () => end('the server ended the call');
    pc.onconnectionstatechange = () => {
      if (pc.connectionState === 'failed' || pc.connectionState === 'closed') end(`connection ${pc.connectionState}`);
    };
    try {
      const offer = await pc.createOffer();
      await pc.setLocalDescription(offer);
      const res = await fetch('/v1/realtime/calls', {
        method: 'POST',
        body: callBody(offer.sdp!, session),
        headers: { Authorization: `Bearer ${secret}` },
      });
      if (res.status !== 201) throw await apiErrorOf(res);
      await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() });
      const callId = res.headers.get('Location')?.split('/').pop() ?? null;
      await new Promise<void>((resolve, reject) => {
        if (channel.readyState === 'open') return resolve();
        channel.onopen = () => resolve();
        setTimeout(() => reject(new Error('The call did not connect within 15 s (no network path to the server?).')), 15_000);
      });
      return new RealtimeCall(pc, channel, mic, remote, player, callId, end);
    } catch (err) {
      closed = true;
      pc.close();
      mic.getTracks().forEach((t) => t.stop());
      throw err;
    }
  }

  get open(): boolean {
    return this.channel.readyState === 'open';
  }

  send(event: Record<string, unknown>): void {
    if (this.open) this.channel.send(JSON.stringify(event));
  }

  /** The microphone track on or off (off sends silence; the call stays up). */
  setMicEnabled(enabled: boolean): void {
    for (const t of this.mic.getAudioTracks()) t.enabled = enabled;
  }

  /** What the browser applied to the microphone (echo cancellation must be on for speakers). */
  /** The jitter buffer target the reply's receiver was asked for (ms; null before the track or without the hint). */
  jitterBufferTarget(): number | null {
    const receiver = this.pc.getReceivers().find((r) => r.track.kind === 'audio') as
      (RTCRtpReceiver & { jitterBufferTarget?: number | null }) | undefined;
    return receiver?.jitterBufferTarget ?? null;
  }

  micSettings(): MediaTrackSettings {
    return this.mic.getAudioTracks()[0]?.getSettings() ?? {};
  }

  /** Hangs up: the handlers' onClose hears 'client closed' (unless the call had already ended). */
  close(): void {
    this.channel.onclose = null;
    this.pc.onconnectionstatechange = null;
    this.channel.close();
    this.pc.close();
    this.mic.getTracks().forEach((t) => t.stop());
    this.player.srcObject = null;
    this.end('client closed');
  }
}

/** The offer alone (application/sdp), or with the session as OpenAI's flow allows (multipart/form-data). */
function callBody(sdp: string, session: Record<string, unknown> | undefined): BodyInit {
  // A Blob's type becomes the request's Content-Type; FormData sets multipart with its boundary.
  if (!session) return new Blob([sdp], { type: 'application/sdp' });
  const form = new FormData();
  form.set('sdp', sdp);
  form.set('session', JSON.stringify(session));
  return form;
}
