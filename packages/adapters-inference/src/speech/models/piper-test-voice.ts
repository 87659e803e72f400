import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { piperTestModel } from './test-voice-models.js';

/**
 * A Piper voice config in the format Piper publishes (`NAME.onnx.json`: audio.sample_rate,
 * espeak.voice, inference.{noise_scale,length_scale,noise_w}, phoneme_type, phoneme_id_map with
 * `_` pad, `^` bos, `$` eos, num_speakers, speaker_id_map, language.code), with a small id map.
 */
export function piperConfigJson(options: { sampleRate?: number; speakers?: string[]; lengthScale?: number } = {}) {
  const phonemes = ['_', '^', '$', ' ', 'h', 'ə', 'l', 'ˈ', 'o', 'ʊ', 'w', 'ɜ', 'ː', 'd', 'ɛ', 's', 't', 'ɪ', 'ð', 'z', 'ɐ', 'n', 'i', 'k', 'æ', 'ɹ', 'a', 'e', 'm', 'ʌ'];
  const phoneme_id_map: Record<string, number[]> = {};
  phonemes.forEach((p, i) => (phoneme_id_map[p] = [i]));
  const speakers = options.speakers ?? [];
  return {
    audio: { sample_rate: options.sampleRate ?? 22050, quality: 'medium' },
    espeak: { voice: 'en-us' },
    language: { code: 'en_US' },
    inference: { noise_scale: 0.667, length_scale: options.lengthScale ?? 1, noise_w: 0.8 },
    phoneme_type: 'espeak',
    phoneme_map: {},
    phoneme_id_map,
    num_symbols: phonemes.length,
    num_speakers: Math.max(1, speakers.length),
    speaker_id_map: Object.fromEntries(speakers.map((s, i) => [s, i])),
    piper_version: '1.0.0',
  };
}

/** Writes `NAME.onnx` (a test-built Piper-shaped model) and `NAME.onnx.json` into dir. */
export async function writePiperVoice(dir: string, name: string, options: { sampleRate?: number; speakers?: string[]; lengthScale?: number } = {}): Promise<void> {
  await mkdir(dir, { recursive: true });
  const sampleRate = options.sampleRate ?? 22050;
  await writeFile(join(dir, `${name}.onnx`), piperTestModel({ sampleRate, multiSpeaker: (options.speakers?.length ?? 0) > 1 }));
  await writeFile(join(dir, `${name}.onnx.json`), JSON.stringify(piperConfigJson(options)));
}
