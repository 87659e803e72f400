import { readFileSync, readdirSync } from 'node:fs';
import { concatPcm } from '@svc/core';
import { OpusscriptOpusCodec } from '@svc/adapters-media';
import { SileroVoiceActivityDetector, SILERO_FRAME_MS } from '@svc/adapters-speech-recognition';
import { resampleInt16 } from '@svc/adapters-runtime';
import { round } from './harness.js';

const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';

/** The LibriVox sentences end to end, 16 kHz mono. */
function sentences(): Int16Array {
  const clips = readdirSync(LIBRIVOX)
    .filter((f) => f.endsWith('.wav'))
    .sort()
    .map((f) => {
      const wav = readFileSync(`${LIBRIVOX}/${f}`);
      const data = wav.subarray(wav.indexOf('data') + 8);
      return new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.length));
    });
  return concatPcm(clips);
}

/**
 * `npm run bench -- realtime-factors`: what one session's audio path costs per second of audio on
 * this machine (these were bounds in the tests, which a loaded machine broke): Silero VAD per 32 ms
 * frame at 16 and 24 kHz input (20 ms appends, as a realtime client sends), and Opus (20 ms frames,
 * 48 kHz) encode and decode of the LibriVox sentences.
 */
export async function benchRealtimeFactors(): Promise<Record<string, number | string>> {
  const out: Record<string, number | string> = {};
  const speech16k = sentences();
  const detector = await SileroVoiceActivityDetector.create();
  try {
    for (const rate of [16000, 24000]) {
      const signal = rate === 16000 ? speech16k : resampleInt16(speech16k, 16000, rate);
      const stream = detector.open({
        sampleRate: rate,
        threshold: 0.5,
        prefixPaddingMs: 300,
        silenceDurationMs: 500,
        minSpeechDurationMs: 125,
        mode: 'server_vad',
      });
      await stream.push(signal.subarray(0, rate)); // warm-up: the first runs allocate
      const chunk = rate / 50;
      const started = performance.now();
      for (let offset = rate; offset < signal.length; offset += chunk) await stream.push(signal.subarray(offset, offset + chunk));
      const ms = performance.now() - started;
      const frames = (signal.length - rate) / rate / (SILERO_FRAME_MS / 1000);
      stream.close?.();
      out[`Silero VAD at ${rate / 1000} kHz: ms per 32 ms frame (real-time factor)`] =
        `${round(ms / frames, 3)} (${round(ms / frames / SILERO_FRAME_MS, 4)})`;
    }
  } finally {
    await detector.close();
  }
  const codec = new OpusscriptOpusCodec();
  const speech48k = resampleInt16(speech16k, 16000, 48000);
  const seconds = speech48k.length / 48000;
  codec.createEncoder(20).encode(speech48k.subarray(0, 48000)); // warm-up
  let started = performance.now();
  const encoder = codec.createEncoder(20);
  const packets: Uint8Array[] = [];
  for (let offset = 0; offset < speech48k.length; offset += 480) packets.push(...encoder.encode(speech48k.subarray(offset, offset + 480)));
  packets.push(...encoder.flush());
  const encodeS = (performance.now() - started) / 1000;
  started = performance.now();
  await codec.decode(packets, 20);
  const decodeS = (performance.now() - started) / 1000;
  out[`Opus 20 ms frames on ${round(seconds, 1)} s of speech: real-time factor encode / decode`] =
    `${round(encodeS / seconds, 4)} / ${round(decodeS / seconds, 4)}`;
  return out;
}
