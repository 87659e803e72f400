// The embedded avatar renderer (face-api landmarks + an inverse-mapped face warp) and its parts.
export { LandmarkAvatarRenderer, parseSize, type LandmarkAvatarRendererOptions } from './landmark-avatar-renderer.js';
export { loadFaceApi, type FaceApiRuntime } from './face-api-runtime.js';
export { detectFaces, detectLargestFace, MIN_FACE_SCORE, type DetectedFace } from './face-detection.js';
export { decodeImage, readImageHeader, MAX_IMAGE_PIXELS, type ImageHeader } from './decode-image.js';
export { speechFeatures, type FrameFeatures } from './speech-features.js';
export { loudness, audioMouthTrack, SILENCE_RMS } from './audio-mouth-track.js';
export { wordVisemes, VISEME_SHAPES, type Viseme } from './visemes.js';
export { blinkSchedule, type Blink } from './blinks.js';
export type { RgbImage, Point } from './rgb-image.js';
