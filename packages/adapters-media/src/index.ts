// Media codecs and fetching: ffmpeg audio decode/encode and the fragmented-MP4 / live H.264 video
// encoders, Opus frames (opusscript), and the SSRF-safe media fetcher.
export { FfmpegAudioCodec, type FfmpegAudioCodecOptions } from './codec/ffmpeg-audio-codec.js';
export { FfmpegLiveH264Encoder, type FfmpegLiveH264EncoderOptions } from './codec/ffmpeg-live-h264-encoder.js';
export { FlvH264Reader, NAL_IDR, NAL_SPS, NAL_PPS } from './codec/flv-h264-reader.js';
export { runFfmpeg, FfmpegError, type RunFfmpegOptions } from './codec/ffmpeg/run-ffmpeg.js';
export { ffmpegPath } from './codec/ffmpeg/ffmpeg-path.js';
export { detectAudioFormat, type AudioContainer } from './codec/detect-audio-format.js';
export { encoderArguments, decoderArguments, DEFAULT_BITRATES, type EncoderBitrates } from './codec/encoder-arguments.js';
export { mp4Faststart } from './codec/mp4-faststart.js';
export * from './fetch/index.js';
export * from './opus/index.js';
export { FfmpegVideoEncoder, padToFrames, type FfmpegVideoEncoderOptions } from './codec/ffmpeg-video-encoder.js';
export { avcCodecString, aacCodecString, AVATAR_VIDEO_CODECS, AVATAR_VIDEO_MIME_TYPE } from './codec/mp4-codec-string.js';
