import { DEFAULT_VOICE_NAME } from '../../speech/voice-catalog.js';
import { validateSpeechRequest } from '../../speech/speech-request.js';
import type { SynthesizeSpeech } from '../../speech/synthesize-speech.js';
import type { ReplySpeaker, ReplySpeechRequest } from '../ports/audio-pipeline.js';

/**
 * Spoken realtime replies through the same speech use case as POST /v1/audio/speech: the same
 * presets, registered voices (scoped to the session's key), inline tags and normalization. One
 * SynthesizeSpeech per output rate, so the engines resample straight to the session's format.
 * The samples come as samples (`speak`, not `execute`): the transport encodes them once.
 */
export class SynthesizedReplySpeaker implements ReplySpeaker {
  private readonly byRate = new Map<number, SynthesizeSpeech>();

  constructor(private readonly speechAt: (sampleRate: number) => SynthesizeSpeech) {}

  async *speak(request: ReplySpeechRequest, signal: AbortSignal): AsyncIterable<Int16Array> {
    // A reply of only punctuation or emoji is silence, not an error (REST answers input_not_speakable).
    if (!/[\p{L}\p{N}]/u.test(request.text)) return;
    const speech = validateSpeechRequest({
      input: request.text,
      voice: request.voice === DEFAULT_VOICE_NAME ? undefined : request.voice,
      response_format: 'pcm',
      speed: request.speed,
    });
    const result = await this.synthesizer(request.sampleRate).speak(speech, request.principal, signal, request.edges);
    yield* result.samples;
  }

  private synthesizer(rate: number): SynthesizeSpeech {
    let synthesizer = this.byRate.get(rate);
    if (!synthesizer) {
      synthesizer = this.speechAt(rate);
      this.byRate.set(rate, synthesizer);
    }
    return synthesizer;
  }
}
