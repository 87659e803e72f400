import { DEFAULT_VIDEO_SIZE, VIDEO_SIZES, type VideoSize } from '../../video/video-job.js';
import { expectObject, expectString, oneOf, rejectUnknownKeys } from '../protocol/field-checks.js';
import { invalidRequest } from '../protocol/realtime-error.js';

/**
 * Extension: `session.avatar`, a face for the call's video track. `ref_image` is what /v1/videos
 * takes (an http(s) URL, a data URI or base64 bytes; PNG, JPEG or WEBP), `size` one of the video
 * sizes.
 */
export interface SessionAvatarConfig {
  ref_image: string;
  size: VideoSize;
}

/**
 * `session.avatar`: an object, or null to take the face off the call. An update that leaves out
 * `ref_image` keeps the current face (a client echoing the session object back, which shows no
 * inline image, changes nothing); without a current face it is required.
 */
export function parseSessionAvatar(raw: unknown, current: SessionAvatarConfig | null): SessionAvatarConfig | null {
  if (raw === null) return null;
  const a = expectObject(raw, 'session.avatar');
  rejectUnknownKeys(a, ['ref_image', 'size'], 'session.avatar');
  const size = a.size === undefined ? (current?.size ?? DEFAULT_VIDEO_SIZE) : oneOf(a.size, VIDEO_SIZES, 'session.avatar.size');
  if (a.ref_image === undefined || a.ref_image === null) {
    if (!current)
      throw invalidRequest(
        'missing_required_parameter',
        "'session.avatar.ref_image' is required: the face to animate (URL, data URI or base64).",
        'session.avatar.ref_image',
      );
    return { ref_image: current.ref_image, size };
  }
  const refImage = expectString(a.ref_image, 'session.avatar.ref_image');
  if (refImage.trim() === '') throw invalidRequest('invalid_value', "'session.avatar.ref_image' is empty.", 'session.avatar.ref_image');
  return { ref_image: refImage, size };
}

/** What session.created / session.updated show of the avatar: inline images (megabytes) are not echoed, URLs are. */
export function avatarObject(avatar: SessionAvatarConfig | null): { size: VideoSize; ref_image?: string } | null {
  if (!avatar) return null;
  return /^https?:\/\//i.test(avatar.ref_image) ? { size: avatar.size, ref_image: avatar.ref_image } : { size: avatar.size };
}
