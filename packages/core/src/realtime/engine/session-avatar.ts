import type { Clock } from '../../shared/clock.js';
import { ServiceError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { ReferenceImageLoader } from '../../video/reference-image-loader.js';
import type { LiveAvatar, LiveAvatarRenderer } from '../ports/live-avatar.js';
import { invalidRequest } from '../protocol/realtime-error.js';
import type { SessionAvatarConfig } from '../session/avatar-input.js';

/** The server's live avatar: the renderer and the SSRF-safe photo loader /v1/videos uses. */
export interface LiveAvatarServices {
  renderer: LiveAvatarRenderer;
  images: ReferenceImageLoader;
}

/** A transport that can show a picture (a WebRTC call with a video track). */
export interface SessionVideoOutput {
  /** Shows this avatar on the call's video from now on; null takes it off. */
  show(avatar: LiveAvatar | null): void;
}

const PARAM = 'session.avatar.ref_image';

/**
 * The face of a session (`session.avatar`): opened before the configuration that names it takes
 * effect, so a photo that cannot be fetched, is no image or holds no face fails that
 * `session.update` (error, then the session closes, as for any invalid configuration). A session
 * whose transport has no video (a WebSocket, a call whose offer had no video) or a server without
 * the renderer refuses the field the same way.
 */
export class SessionAvatar {
  private current: { config: SessionAvatarConfig; avatar: LiveAvatar } | null = null;
  private readonly stop = new AbortController();

  constructor(
    private readonly services: LiveAvatarServices | undefined,
    private readonly video: SessionVideoOutput | undefined,
    private readonly logger: Logger,
    private readonly clock: Clock,
    /** The session's API key: a photo URL's download counts in its large transfers in progress. */
    private readonly apiKeyId: string,
  ) {}

  /** The face on the call now. */
  get shown(): LiveAvatar | null {
    return this.current?.avatar ?? null;
  }

  /** Opens the face `next` names, unless it is the one shown; throws a RealtimeError for one that cannot be. */
  async prepare(next: SessionAvatarConfig | null): Promise<LiveAvatar | null> {
    if (!next) return null;
    if (this.current && same(this.current.config, next)) return this.current.avatar;
    const services = servicesFor(this.services, this.video !== undefined);
    const started = this.clock.now();
    try {
      const { bytes } = await services.images.load(next.ref_image, this.stop.signal, { apiKeyId: this.apiKeyId });
      const avatar = await services.renderer.open(bytes, { size: next.size }, this.stop.signal);
      this.logger.info({ size: next.size, bytes: bytes.length, ms: this.clock.now() - started }, 'live avatar face ready');
      return avatar;
    } catch (err) {
      throw asSessionFieldError(err);
    }
  }

  /** The configuration took effect: shows `avatar` (from prepare) and closes the face it replaces. */
  commit(config: SessionAvatarConfig | null, avatar: LiveAvatar | null): void {
    if (this.current?.avatar === avatar) return;
    const previous = this.current;
    this.current = config && avatar ? { config, avatar } : null;
    this.video?.show(avatar);
    previous?.avatar.close();
  }

  /** The session ended: the picture stops, the face is freed, a face still loading is abandoned. */
  close(): void {
    this.stop.abort();
    const previous = this.current;
    this.current = null;
    if (previous) {
      this.video?.show(null);
      previous.avatar.close();
    }
  }
}

/**
 * What a WebRTC call checks of its offer's `session.avatar` before it answers, so that a face it
 * could never show is a 400 instead of a call that connects only to end: the server has the live
 * avatar, the call has video, and the photo passes the checks that need no download (an inline
 * photo decoded and its header read; a URL held to the SSRF rules, its host resolved). Fetching a
 * URL and finding the face stay with the session (SessionAvatar.prepare), while the call connects.
 * Throws the RealtimeError the session would send as its `error` event.
 */
export async function checkAvatarBeforeCall(
  next: SessionAvatarConfig | null,
  services: LiveAvatarServices | undefined,
  hasVideo: boolean,
  signal?: AbortSignal,
): Promise<void> {
  if (!next) return;
  const { images } = servicesFor(services, hasVideo);
  try {
    await images.check(next.ref_image, signal);
  } catch (err) {
    throw asSessionFieldError(err);
  }
}

/** The live avatar's services for a session with or without video; the refusals when there can be no face. */
function servicesFor(services: LiveAvatarServices | undefined, hasVideo: boolean): LiveAvatarServices {
  // a server without the live avatar says so first: no transport of it could show a face
  if (!services) throw invalidRequest('avatar_unavailable', 'This server has no live avatar renderer.', 'session.avatar');
  if (!hasVideo) {
    throw invalidRequest(
      'avatar_requires_video',
      "'session.avatar' needs a WebRTC call with a video track (POST /v1/realtime/calls with an offer that receives video); this session carries no video.",
      'session.avatar',
    );
  }
  return services;
}

/** The photo's own faults are the caller's, named at the session field. */
function asSessionFieldError(err: unknown): unknown {
  if (err instanceof ServiceError && !err.serverFault)
    return invalidRequest(err.identifier, err.message.replace(/'ref_image'/g, `'${PARAM}'`), PARAM);
  return err;
}

const same = (a: SessionAvatarConfig, b: SessionAvatarConfig): boolean => a.ref_image === b.ref_image && a.size === b.size;
