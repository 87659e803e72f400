import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { percentile, round } from './harness.js';

const CLIP = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav';

/**
 * The realtime voice loop with the real engines: a 16 kHz sentence is streamed in, and we time
 * from `speech_stopped` to the transcript, to `response.created` and to the first audio delta.
 */
export async function benchVoiceLoop(ctx: { wsUrl: string; apiKey: string }): Promise<Record<string, number | string>> {
  const wav = readFileSync(CLIP);
  const speech = wav.subarray(wav.indexOf('data') + 8);
  const silence = Buffer.alloc(16000 * 2);
  const audio = Buffer.concat([silence.subarray(0, 16000), speech, silence]);
  const toTranscript: number[] = [];
  const toResponse: number[] = [];
  const toAudio: number[] = [];
  for (let run = 0; run < 8; run++) {
    const t = await oneTurn(ctx, audio);
    toTranscript.push(t.transcript);
    toResponse.push(t.response);
    toAudio.push(t.audio);
  }
  return {
    'speech_stopped -> transcript p50 (ms, pocketsphinx process per turn)': round(percentile(toTranscript, 50)),
    'speech_stopped -> response.created p50 (ms)': round(percentile(toResponse, 50)),
    'speech_stopped -> first response.output_audio.delta p50 (ms)': round(percentile(toAudio, 50)),
    'speech_stopped -> first audio p95 (ms)': round(percentile(toAudio, 95)),
  };
}

function oneTurn(ctx: { wsUrl: string; apiKey: string }, audio: Buffer): Promise<{ transcript: number; response: number; audio: number }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${ctx.wsUrl}/v1/realtime?model=svc-realtime`, { headers: { Authorization: `Bearer ${ctx.apiKey}` } });
    const marks: Record<string, number> = {};
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`voice loop timed out: ${JSON.stringify(marks)}`));
    }, 30_000);
    ws.on('open', () =>
      ws.send(
        JSON.stringify({
          type: 'session.update',
          session: {
            type: 'realtime',
            output_modalities: ['audio'],
            audio: {
              input: { format: { type: 'audio/pcm', rate: 16000 }, transcription: { model: 'svc-stt-3.1' }, turn_detection: { type: 'server_vad', silence_duration_ms: 500 } },
            },
          },
        }),
      ),
    );
    ws.on('message', (data) => {
      const event = JSON.parse(data.toString()) as { type: string };
      if (event.type === 'session.created') {
        for (let i = 0; i < audio.length; i += 3200) {
          ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: audio.subarray(i, i + 3200).toString('base64') }));
        }
      }
      marks[event.type] ??= performance.now();
      if (event.type === 'response.output_audio.delta') {
        clearTimeout(timer);
        const stopped = marks['input_audio_buffer.speech_stopped']!;
        resolve({
          transcript: (marks['conversation.item.input_audio_transcription.completed'] ?? NaN) - stopped,
          response: marks['response.created']! - stopped,
          audio: marks['response.output_audio.delta']! - stopped,
        });
        ws.close();
      }
    });
    ws.on('error', reject);
  });
}
