// The embedded avatar renderer (face-api landmarks + an inverse-mapped face warp) and its parts.
//
// Use (apps/server wires it behind the core's AvatarRenderer / MediaEncoder ports):
//   const renderer = new LandmarkAvatarRenderer({ renderThreads: 1 });   // one per process
//   await renderer.warmUp();                       // optional: threads + WASM + weights now
//   const avatar = await renderer.prepare(photoBytes, '640x640', signal); // NoFaceDetectedError,
//                                                  // InvalidParameterError(param 'ref_image')
//   const frames = avatar.render({ audio, words }, signal);  // lazy, ceil(duration * 25) frames
//   for await (const bytes of new FfmpegVideoEncoder().encodeFragmentedMp4(frames, audio,
//     { fps: avatar.fps, width: avatar.width, height: avatar.height }, signal)) { ... }
//   avatar.release?.(); await renderer.close();     // at shutdown
// Format and size are checked before a job exists by the core's pure readImageHeader (no decoding).
export { LandmarkAvatarRenderer, parseSize, type LandmarkAvatarRendererOptions, type PreparedPhoto } from './landmark-avatar-renderer.js';
export { LandmarkLiveAvatarRenderer, type LandmarkLiveAvatarRendererOptions } from './live/landmark-live-avatar-renderer.js';
export { loadFaceApi, type FaceApiRuntime } from './face-api-runtime.js';
export { detectFaces, detectLargestFace, MIN_FACE_SCORE, type DetectedFace } from './face-detection.js';
export { decodeImage, MAX_IMAGE_PIXELS } from './decode-image.js';
export { speechFeatures, type FrameFeatures } from './speech-features.js';
export { loudness, audioMouthTrack, SILENCE_RMS } from './audio-mouth-track.js';
export { wordVisemes, VISEME_SHAPES, type Viseme } from './visemes.js';
export { blinkSchedule, type Blink } from './blinks.js';
export type { RgbImage, Point } from './rgb-image.js';
