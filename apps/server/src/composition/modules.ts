import { compatibilityModule } from './compatibility.js';
import { foundationModule } from './foundation.js';
import { liveAvatarModule } from './live-avatar.js';
import { scaleModule } from './scale.js';
import { playgroundModule } from './playground.js';
import { realtimeModule } from './realtime.js';
import { realtimeAudioModule } from './realtime-audio.js';
import { realtimeWebrtcModule } from './realtime-webrtc.js';
import { realtimeSipModule } from './realtime-sip.js';
import { transcriptionModule } from './transcription.js';
import { speechModule } from './speech.js';
import { videoModule } from './video.js';
import { voicesModule } from './voices.js';
import { wyomingModule } from './wyoming.js';

/**
 * The modules of the server, in the order their routes register. A new capability is one file in
 * this folder (its settings, bindings and routes; see module.ts) plus its line here. Every process
 * role (SVC_ROLE: api, worker, both) binds all of them; the role decides what is mounted and started
 * (server.ts, runtime/process-role.ts).
 */
export const SERVER_MODULES = [
  foundationModule,
  scaleModule,
  speechModule,
  voicesModule,
  videoModule,
  liveAvatarModule,
  realtimeAudioModule,
  transcriptionModule,
  realtimeModule,
  realtimeWebrtcModule,
  realtimeSipModule,
  compatibilityModule,
  wyomingModule,
  playgroundModule,
] as const;
