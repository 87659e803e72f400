// Two clearly different reference speakers for the cloning tests (not a test file itself).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Init from '@echogarden/espeak-ng-emscripten';
import { NEUTRAL_PROSODY, pcmToBytes, type AudioCodec, type PcmAudio, type SpeechSynthesizer } from '@svc/core';
import { wavHeader } from '@svc/adapters-runtime';

export interface ReferenceSpeaker {
  name: string;
  audio: PcmAudio;
  transcript: string;
}

const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';

/**
 * A real human reader when Debian's pocketsphinx-testdata is installed (five LibriVox sentences by one
 * adult male reader, BSD-2), otherwise a synthetic male stand-in: Flite's kal16 diphone voice, which
 * is not one of the base presets, so cloning it is not a no-op.
 */
export async function maleReference(codec: AudioCodec, flite: SpeechSynthesizer): Promise<ReferenceSpeaker> {
  if (existsSync(join(LIBRIVOX, 'transcription'))) {
    const lines = readFileSync(join(LIBRIVOX, 'transcription'), 'utf8').trim().split('\n');
    const parts: Int16Array[] = [];
    const words: string[] = [];
    for (const line of lines) {
      const match = /^<s> (.*) <\/s> \((.*)\)$/.exec(line.trim());
      if (!match) continue;
      words.push(match[1]!);
      parts.push((await codec.decode(readFileSync(join(LIBRIVOX, `${match[2]}.wav`)), 16000)).samples);
    }
    return {
      name: 'LibriVox reader (human, male, pocketsphinx-testdata)',
      audio: { samples: join16(parts), sampleRate: 16000 },
      transcript: words.join('. '),
    };
  }
  const transcript =
    'Please call Stella. Ask her to bring these things with her from the store: six spoons of fresh snow peas, five thick slabs of blue cheese, and maybe a snack for her brother Bob.';
  const voice = flite.voices().find((v) => v.name === 'kal16')!;
  const speech = await flite.synthesize({ text: transcript, voice, prosody: NEUTRAL_PROSODY, sampleRate: 16000, wordTimings: false });
  return { name: 'Flite kal16 (synthetic male fallback)', audio: { samples: speech.samples, sampleRate: speech.sampleRate }, transcript };
}

/** eSpeak NG's female variant `f3`, pitch raised (espeak pitch 70 of 100): a high, bright voice. */
export async function femaleReference(): Promise<ReferenceSpeaker> {
  const transcript =
    'The quick brown fox jumps over the lazy dog. She sells sea shells by the sea shore, and the shells she sells are surely sea shells. ' +
    'Please call Stella and ask her to bring these things with her from the store.';
  const espeak = new (await Init()).eSpeakNGWorker();
  if (espeak.set_voice('en-us+f3') !== 0) throw new Error('espeak variant en-us+f3 is missing');
  espeak.set_pitch(70);
  const parts: Int16Array[] = [];
  espeak.synthesize(transcript, (samples) => {
    parts.push(new Int16Array(samples));
    return 0;
  });
  return {
    name: 'eSpeak NG en-us+f3, pitch 70 (synthetic female)',
    audio: { samples: join16(parts), sampleRate: espeak.get_samplerate() },
    transcript,
  };
}

export function wavBytes(audio: PcmAudio): Uint8Array {
  const data = pcmToBytes(audio.samples);
  const out = new Uint8Array(44 + data.length);
  out.set(wavHeader(audio.sampleRate, data.length), 0);
  out.set(data, 44);
  return out;
}

export function join16(parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
