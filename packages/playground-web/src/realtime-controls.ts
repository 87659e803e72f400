import { catalog } from './catalog.js';
import { showCode } from './code-samples.js';
import { byId, readFileAsDataUrl } from './dom.js';
import { initFacePicker } from './face-picker.js';
import { realtimeCode } from './realtime-code.js';
import { avatarConfig, realtimeSession, sessionWithFace, type RealtimeSessionConfig } from './realtime-session-config.js';

/**
 * The realtime panel's controls, looked up once: the session they configure, the code sample that
 * shows it, and which of them are enabled (connected or not, a face chosen or not).
 */
export class RealtimeControls {
  readonly voice = byId<HTMLSelectElement>('rt-voice');
  readonly transport = byId<HTMLSelectElement>('rt-transport');
  readonly mode = byId<HTMLSelectElement>('rt-mode');
  readonly turn = byId<HTMLSelectElement>('rt-turn');
  readonly instructions = byId<HTMLTextAreaElement>('rt-instructions');
  readonly preset = byId<HTMLSelectElement>('rt-instructions-preset');
  readonly connect = byId<HTMLButtonElement>('rt-connect');
  readonly micButton = byId<HTMLButtonElement>('rt-mic');
  readonly disconnect = byId<HTMLButtonElement>('rt-disconnect');
  readonly textForm = byId<HTMLFormElement>('rt-text-form');
  readonly textInput = byId<HTMLInputElement>('rt-text');
  readonly sendButton = byId<HTMLButtonElement>('rt-send');
  readonly status = byId('rt-status');
  readonly level = byId('rt-level');
  readonly avatarControls = byId<HTMLFieldSetElement>('rt-avatar');
  readonly faceSize = byId<HTMLSelectElement>('rt-face-size');
  readonly faceNone = byId<HTMLButtonElement>('rt-face-none');
  readonly picker = initFacePicker({ file: byId('rt-face-image'), preview: byId('rt-face-preview'), samples: byId('rt-face-samples') });

  constructor() {
    catalog.onChange(() => catalog.fill(this.voice));
  }

  get webrtc(): boolean {
    return this.transport.value === 'webrtc';
  }

  session(): RealtimeSessionConfig {
    return realtimeSession({
      instructions: this.instructions.value,
      mode: this.mode.value,
      voice: this.voice.value,
      turn: this.turn.value,
    });
  }

  /** The session with the chosen face inline, for a WebRTC call with the live avatar. */
  async sessionWithFace(face: Blob): Promise<ReturnType<typeof sessionWithFace>> {
    return sessionWithFace(this.session(), this.faceSize.value, await readFileAsDataUrl(face));
  }

  showCode(): void {
    const withAvatar = this.webrtc && this.picker.face() !== null;
    showCode('realtime', realtimeCode(this.session(), this.transport.value, withAvatar ? avatarConfig(this.faceSize.value) : null));
  }

  setConnected(connected: boolean): void {
    this.connect.disabled = connected;
    this.disconnect.disabled = !connected;
    this.micButton.disabled = !connected;
    this.textInput.disabled = !connected;
    this.sendButton.disabled = !connected;
    this.syncAvatar(connected);
  }

  /** Connect was pressed (true) or the attempt failed (false): the button, and the avatar controls with it. */
  setConnecting(connecting: boolean, connected: boolean): void {
    this.connect.disabled = connecting;
    this.syncAvatar(connected);
  }

  /** A face can be chosen before a WebRTC call, not during one (hang up to change it). */
  syncAvatar(connected: boolean): void {
    this.avatarControls.disabled = !this.webrtc || connected || this.connect.disabled;
    this.faceNone.disabled = this.picker.face() === null;
  }

  /**
   * Keeps the controls consistent as they change: a preset fills the instructions, the avatar
   * controls follow the transport and the face, the code sample follows the session. A change of
   * voice, mode, turn detection or instructions during a session goes to `onSessionChange` (to send
   * session.update).
   */
  listen(isConnected: () => boolean, onSessionChange: () => void): void {
    this.preset.addEventListener('change', () => {
      if (!this.preset.value) return this.instructions.focus();
      this.instructions.value = this.preset.value;
      this.instructions.dispatchEvent(new Event('change'));
    });
    this.instructions.addEventListener('input', () => {
      if (this.instructions.value !== this.preset.value) this.preset.value = '';
    });
    for (const control of [this.voice, this.mode, this.turn, this.instructions]) {
      control.addEventListener('change', () => {
        if (!isConnected()) return;
        onSessionChange();
        this.showCode();
      });
    }
    const onAvatarChange = () => {
      this.syncAvatar(isConnected());
      this.showCode();
    };
    this.transport.addEventListener('change', onAvatarChange);
    this.picker.onChange(onAvatarChange);
    this.faceSize.addEventListener('change', () => this.showCode());
    this.faceNone.addEventListener('click', () => this.picker.clear());
    onAvatarChange();
  }
}
