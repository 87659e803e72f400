import { describeError } from './api.js';
import { base64FromBytes, setStatus } from './dom.js';
import { MicCapture } from './mic-capture.js';
import type { RealtimeEvent } from './realtime-event-log.js';
import { carriesReplySound, carriesVoice, lastVoiceInChunk, levelBarWidth } from './realtime-levels.js';
import { isConnected, REALTIME_RATE as RATE, type PanelState } from './realtime-panel-state.js';
import type { TurnLatency } from './realtime-turn-latency.js';

export interface MicrophoneParts {
  state: PanelState;
  /** The toggle button (aria-pressed while the microphone is on). */
  button: HTMLButtonElement;
  /** The level bar (its width follows the microphone's level). */
  levelBar: HTMLElement;
  status: HTMLElement;
  latency: TurnLatency;
  send(event: RealtimeEvent): void;
}

/**
 * The realtime panel's microphone, for both transports: over WebRTC it is the call's track, turned
 * on and off; over the WebSocket it is captured in the page and sent as input_audio_buffer.append.
 */
export class RealtimeMicrophone {
  constructor(private readonly parts: MicrophoneParts) {}

  async toggle(): Promise<void> {
    const { state, button, levelBar, status, latency, send } = this.parts;
    if (state.call) {
      // WebRTC: the microphone is the call's track; the button turns it on and off.
      if (state.call.micOn) return this.stop();
      state.call.rtc.setMicEnabled(true);
      state.call.micOn = true;
      this.showOn();
      return;
    }
    if (state.mic) return this.stop();
    button.disabled = true;
    try {
      // A live call: echo cancellation keeps the reply playing from the speakers out of the turn.
      state.mic = await MicCapture.start(
        RATE,
        ({ pcm, level: rms }) => {
          // The chunk's last sample was captured just now: its voice is dated back from here.
          const voiceEndMs = lastVoiceInChunk(pcm, RATE);
          if (voiceEndMs !== null) latency.lastVoiceAt = performance.now() - ((pcm.length / RATE) * 1000 - voiceEndMs);
          const bytes = new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength);
          send({ type: 'input_audio_buffer.append', audio: base64FromBytes(bytes) });
          latency.sent(pcm.length, RATE);
          levelBar.style.width = levelBarWidth(rms);
        },
        'call',
      );
      this.showOn();
    } catch (err) {
      setStatus(status, `Microphone: ${describeError(err)}`, 'error');
    } finally {
      button.disabled = !isConnected(state);
    }
  }

  async stop(): Promise<void> {
    const { state, button, levelBar } = this.parts;
    if (state.call) {
      state.call.rtc.setMicEnabled(false);
      state.call.micOn = false;
    }
    await state.mic?.stop();
    state.mic = null;
    levelBar.style.width = '0';
    button.setAttribute('aria-pressed', 'false');
    button.textContent = 'Start microphone';
  }

  /**
   * WebRTC, every few milliseconds: the microphone meter (and when speech was last heard in it) and
   * the reply track's meter: the turn latency is measured at the browser, from the last sound of the
   * user's speech to the first sound of the reply.
   */
  readMeters(): void {
    const { state, levelBar, latency } = this.parts;
    if (!state.call) return;
    const now = performance.now();
    const micLevel = state.call.micOn ? state.call.micMeter.level() : 0;
    if (carriesVoice(micLevel)) latency.lastVoiceAt = now;
    levelBar.style.width = levelBarWidth(micLevel);
    if (latency.awaitingReplySound && state.call.replyMeter && carriesReplySound(state.call.replyMeter.level())) {
      latency.awaitingReplySound = false;
      latency.record(now);
    }
  }

  private showOn(): void {
    const { button, status } = this.parts;
    button.setAttribute('aria-pressed', 'true');
    button.textContent = '■ Stop microphone';
    setStatus(status, 'Microphone on: talk, then pause.', 'ok');
  }
}
