export { DspVoiceAnalyzer } from './dsp-voice-analyzer.js';
export { RubberbandVoiceConverter } from './rubberband-voice-converter.js';
export { measureSpeaker, ANALYSIS_SAMPLE_RATE } from './speaker-features.js';
export { speakerDistance, DISTANCE_SCALES, type SpeakerDistance } from './speaker-similarity.js';
export { chooseClosestBase } from './base-voice-choice.js';
export { planConversion, type ConversionPlan } from './conversion-plan.js';
