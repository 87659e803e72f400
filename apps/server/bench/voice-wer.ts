import WebSocket from 'ws';
import { muLawEncode } from '@svc/core';
import { OpusscriptOpusCodec } from '@svc/adapters-media';
import { resampleInt16 } from '@svc/adapters-runtime';
import { librivoxSentences } from '../test/helpers/librivox.js';
import { wordErrorRate } from '../test/helpers/wer.js';
import { round } from './harness.js';

type Format = { label: string; session: Record<string, unknown>; appends(pcm16k: Int16Array): Promise<Buffer[]> };

/**
 * Word error rate of realtime transcription per input format, through the real server: each LibriVox
 * sentence is converted to the format as a client would send it (resampled, mu-law, opus
 * 20 ms packets), appended, committed and transcribed by the warm pocketsphinx decoders.
 */
export async function benchVoiceWer(ctx: { wsUrl: string; apiKey: string }): Promise<Record<string, number | string>> {
  const opus = new OpusscriptOpusCodec();
  const pcmBytes = (s: Int16Array) => Buffer.from(s.buffer, s.byteOffset, s.byteLength);
  const chunks = (b: Buffer, size: number) =>
    Array.from({ length: Math.ceil(b.length / size) }, (_, i) => b.subarray(i * size, (i + 1) * size));
  const formats: Format[] = [
    ...[16000, 24000, 48000].map((rate) => ({
      label: `pcm ${rate / 1000} kHz`,
      session: { format: { type: 'audio/pcm', rate } },
      appends: async (pcm: Int16Array) => chunks(pcmBytes(resampleInt16(pcm, 16000, rate)), rate / 5),
    })),
    {
      label: 'pcmu (8 kHz G.711)',
      session: { format: { type: 'audio/pcmu' } },
      appends: async (pcm: Int16Array) => chunks(Buffer.from(muLawEncode(resampleInt16(pcm, 16000, 8000))), 1600),
    },
    {
      label: 'opus (48 kHz, 20 ms packets)',
      session: { format: { type: 'audio/opus', frame_size_ms: 20 } },
      appends: async (pcm: Int16Array) => {
        const encoder = opus.createEncoder(20);
        return [...encoder.encode(resampleInt16(pcm, 16000, 48000)), ...encoder.flush()].map((p) => Buffer.from(p));
      },
    },
  ];
  const out: Record<string, number | string> = {};
  const all = librivoxSentences();
  for (const format of formats) {
    // One session per format, the five sentences as five committed turns: a conversation, so the
    // recognizer's speaker normalization carries from one turn to the next as it does for a caller.
    const turns: Buffer[][] = [];
    for (const clip of all) turns.push(await format.appends(clip.samples));
    const heard = await transcribe(ctx, format.session, turns);
    const wer = wordErrorRate(all.map((c) => c.words).join(' '), heard.join(' '));
    out[`WER ${format.label} (5 LibriVox sentences, 71 words)`] = `${round(wer * 100, 1)} %`;
    out[`heard, ${format.label}`] = heard.join(' | ');
  }
  return out;
}

function transcribe(ctx: { wsUrl: string; apiKey: string }, format: Record<string, unknown>, turns: Buffer[][]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${ctx.wsUrl}/v1/realtime?model=svc-realtime`, { headers: { Authorization: `Bearer ${ctx.apiKey}` } });
    const timer = setTimeout(() => reject(new Error('transcription timed out')), 120_000);
    const heard: string[] = [];
    const sendTurn = () => {
      for (const a of turns[heard.length]!) ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: a.toString('base64') }));
      ws.send(JSON.stringify({ type: 'input_audio_buffer.commit' }));
    };
    ws.on('open', () =>
      ws.send(
        JSON.stringify({
          type: 'session.update',
          session: {
            type: 'realtime',
            output_modalities: ['text'],
            audio: { input: { ...format, turn_detection: null, transcription: { model: 'svc-stt-3.1' } } },
          },
        }),
      ),
    );
    ws.on('message', (data) => {
      const event = JSON.parse(data.toString()) as { type: string; transcript?: string; error?: unknown };
      if (event.type === 'session.created') sendTurn();
      else if (event.type === 'conversation.item.input_audio_transcription.completed') {
        heard.push(event.transcript ?? '');
        if (heard.length < turns.length) return sendTurn();
        clearTimeout(timer);
        resolve(heard);
        ws.close();
      } else if (event.type === 'error') {
        clearTimeout(timer);
        reject(new Error(JSON.stringify(event.error)));
        ws.close();
      }
    });
    ws.on('error', reject);
  });
}
