import {
  ReferenceImageLoader,
  SHARED_TOKENS,
  VIDEO_TOKENS,
  type AvatarRenderer,
  type LiveAvatarServices,
  type LiveVideoEncoder,
  type Logger,
  type MediaFetcher,
} from '@svc/core';
import { FfmpegLiveH264Encoder } from '@svc/adapters-media';
import { LandmarkAvatarRenderer, LandmarkLiveAvatarRenderer } from '@svc/adapters-avatar';
import { setting } from '../env-settings.js';
import { SERVER_TOKENS } from '../tokens.js';
import { defineModule } from './module.js';

/** What a WebRTC call needs to show `session.avatar`: the faces (engine side) and the video encoder (transport side). */
export interface LiveAvatarSupport {
  services: LiveAvatarServices;
  encoder: LiveVideoEncoder;
  /** SVC_LIVE_AVATAR_LEAD_MS: how long before its time a frame is made (and how much later an avatar call's reply audio starts). */
  leadMs: number;
}

/**
 * The live avatar on WebRTC calls (docs/live-avatar.md): faces prepared by the video module's
 * renderer (same detector thread and prepared-face cache as /v1/videos), posed and warped live in
 * render threads of their own, encoded by one libx264 ffmpeg per call. Null when
 * SVC_LIVE_AVATAR_ENABLED=false (session.avatar is then refused with avatar_unavailable).
 */
export const liveAvatarModule = defineModule({
  name: 'live-avatar',
  docs: 'docs/live-avatar.md',
  settings: {
    SVC_LIVE_AVATAR_ENABLED: setting.bool(true),
    SVC_LIVE_AVATAR_RENDER_THREADS: setting.int(1, 1, 16),
    SVC_LIVE_AVATAR_LEAD_MS: setting.int(160, 80, 1000),
  },
  bind(provide, config) {
    const s = config.settings;
    provide(
      SERVER_TOKENS.LiveAvatar,
      async (get) => {
        if (!s.SVC_LIVE_AVATAR_ENABLED) return null;
        const faces = await get(VIDEO_TOKENS.AvatarRenderer);
        if (!(faces instanceof LandmarkAvatarRenderer)) return null;
        const renderer = new LandmarkLiveAvatarRenderer(faces, { renderThreads: s.SVC_LIVE_AVATAR_RENDER_THREADS });
        const logger = await get(SHARED_TOKENS.Logger);
        renderer.warmUp().catch((err: unknown) => logger.warn({ err: String(err) }, 'live avatar renderer warm-up failed'));
        // The capacity admission reserves the avatars' CPU apart from the speaking sessions'.
        (await get(SERVER_TOKENS.ServerLoadMonitor)).watchLiveAvatars(() => renderer.liveLoad());
        return {
          services: { renderer, images: new ReferenceImageLoader(await get(SHARED_TOKENS.MediaFetcher)) },
          encoder: new FfmpegLiveH264Encoder(),
          leadMs: s.SVC_LIVE_AVATAR_LEAD_MS,
        };
      },
      { close: (support) => (support?.services.renderer as LandmarkLiveAvatarRenderer | undefined)?.close() },
    );
  },
});
