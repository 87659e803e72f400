import { sleep, type RealtimeClient } from './realtime-client.js';

/** A voice session as a browser opens one: 16 kHz pcm in, spoken replies, server VAD, transcription. */
export const serverVadVoiceSession = {
  output_modalities: ['audio'],
  audio: {
    input: {
      format: { type: 'audio/pcm', rate: 16000 },
      turn_detection: { type: 'server_vad', silence_duration_ms: 500 },
      transcription: { model: 'svc-stt-3.1' },
    },
  },
};

/** 16 kHz PCM in 20 ms appends at real-time pace, as a browser sends its microphone. */
export async function speakAtRealTimePace(client: RealtimeClient, samples: Int16Array): Promise<void> {
  const pcm = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
  const started = performance.now();
  for (let i = 0, n = 0; i < pcm.length; i += 640, n++) {
    client.send({ type: 'input_audio_buffer.append', audio: pcm.subarray(i, i + 640).toString('base64') });
    const due = started + (n + 1) * 20 - performance.now();
    if (due > 0) await sleep(due);
  }
}

/**
 * Silence (ms) before the first and after the last sample at or above -44 dBFS (|x| >= 200, the
 * level the speech output's trim uses): engines pad each utterance with silence (Flite's slt
 * ~170-230 ms before the voice), which the service cuts to 10 ms at the audio's edges.
 */
export function edgeSilenceMs(pcm: Int16Array, rate: number): { leading: number; trailing: number } {
  const loud = (i: number) => Math.abs(pcm[i]!) >= 200;
  let first = 0;
  while (first < pcm.length && !loud(first)) first++;
  let last = pcm.length - 1;
  while (last > first && !loud(last)) last--;
  return { leading: (first / rate) * 1000, trailing: ((pcm.length - 1 - last) / rate) * 1000 };
}
