import { readdirSync, readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { percentile, round } from './harness.js';

const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
const SILENCE_DURATION_MS = 500;
const APPEND_MS = 100;

/** 16 kHz mono s16 speech of the five LibriVox sentences (a human reader, pocketsphinx-testdata). */
function clips(): Buffer[] {
  return readdirSync(LIBRIVOX)
    .filter((f) => f.endsWith('.wav'))
    .sort()
    .map((f) => {
      const wav = readFileSync(`${LIBRIVOX}/${f}`);
      return wav.subarray(wav.indexOf('data') + 8);
    });
}

interface TurnTiming {
  /** speech_stopped -> first response.output_audio.delta (ms, as the client saw them). */
  fromStopped: number;
  /** Last speech sample sent -> first audio delta: adds the silence_duration_ms the VAD waits. */
  fromSpeechEnd: number;
  /** speech_stopped -> transcript. */
  transcript: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The realtime voice loop with the real engines, as a person uses it: LibriVox sentences streamed
 * in at real-time pace (100 ms appends), server VAD, warm streaming pocketsphinx, the embedded
 * model and spoken replies (24 kHz pcm). Timed from `speech_stopped` and from the true end of
 * speech to the first audio delta; then the same with 5, 10 and 20 simultaneous conversations,
 * with the CPU used per second of conversation (this process and the decoder processes).
 */
export async function benchVoiceLoop(ctx: { wsUrl: string; apiKey: string }): Promise<Record<string, number | string>> {
  const speech = clips();
  const out: Record<string, number | string> = {};
  const single: TurnTiming[] = [];
  for (let run = 0; run < 3; run++) for (const clip of speech) single.push(await oneTurn(ctx, clip));
  summarize(out, '1 session', single);
  for (const sessions of [5, 10, 20]) {
    const cpuBefore = cpuMs();
    const started = performance.now();
    const timings = await Promise.all(
      Array.from({ length: sessions }, async (_, i) => {
        // Staggered like real callers, so turns do not all end in the same 100 ms.
        await sleep((i * 1000) / sessions);
        // An overloaded run is a result, not a crash: its turns count as timed out.
        return oneTurn(ctx, speech[i % speech.length]!).catch(() => null);
      }),
    );
    const wallS = (performance.now() - started) / 1000;
    const completed = timings.filter((t): t is TurnTiming => t !== null);
    summarize(out, `${sessions} sessions`, completed);
    out[`${sessions} sessions: turns without a reply within 30 s`] = sessions - completed.length;
    out[`${sessions} sessions: CPU per session-second (ms, this process + decoders)`] = round((cpuMs() - cpuBefore) / (sessions * wallS));
  }
  return out;
}

function summarize(out: Record<string, number | string>, label: string, t: TurnTiming[]): void {
  if (t.length === 0) return;
  const stopped = t.map((x) => x.fromStopped);
  const end = t.map((x) => x.fromSpeechEnd);
  out[`${label}: speech_stopped -> first audio delta p50 / p95 (ms, n=${t.length})`] = `${round(percentile(stopped, 50))} / ${round(percentile(stopped, 95))}`;
  out[`${label}: end of speech -> first audio delta p50 / p95 (ms, silence_duration_ms ${SILENCE_DURATION_MS})`] = `${round(percentile(end, 50))} / ${round(percentile(end, 95))}`;
  out[`${label}: speech_stopped -> transcript p50 (ms)`] = round(percentile(t.map((x) => x.transcript), 50));
}

/** CPU time (ms) of this process and of its pocketsphinx decoder children so far. */
function cpuMs(): number {
  const own = process.cpuUsage();
  let children = 0;
  const tick = 10; // USER_HZ is 100 on Linux
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) !== process.pid) continue;
      children += (Number(fields[11]) + Number(fields[12])) * tick;
    } catch {
      // exited meanwhile
    }
  }
  return (own.user + own.system) / 1000 + children;
}

function oneTurn(ctx: { wsUrl: string; apiKey: string }, clip: Buffer): Promise<TurnTiming> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${ctx.wsUrl}/v1/realtime?model=svc-realtime`, { headers: { Authorization: `Bearer ${ctx.apiKey}` } });
    const marks: Record<string, number> = {};
    let speechEndAt = 0;
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`voice loop timed out: ${JSON.stringify(marks)}`));
    }, 30_000 + (clip.length / 32));
    const audio = Buffer.concat([Buffer.alloc(16000), clip, Buffer.alloc(32000 * 2)]);
    const stream = async () => {
      const started = performance.now();
      const step = (16000 * 2 * APPEND_MS) / 1000;
      for (let i = 0, n = 0; i < audio.length && ws.readyState === WebSocket.OPEN; i += step, n++) {
        ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: audio.subarray(i, i + step).toString('base64') }));
        // The end of the speech, as a listener would hear it: once its last sample has been sent and played.
        if (i < 16000 + clip.length && i + step >= 16000 + clip.length) speechEndAt = started + ((16000 + clip.length) / 32000) * 1000;
        const due = started + (n + 1) * APPEND_MS - performance.now();
        if (due > 0) await sleep(due);
      }
    };
    ws.on('open', () =>
      ws.send(
        JSON.stringify({
          type: 'session.update',
          session: {
            type: 'realtime',
            output_modalities: ['audio'],
            audio: {
              input: {
                format: { type: 'audio/pcm', rate: 16000 },
                transcription: { model: 'svc-stt-3.1' },
                turn_detection: { type: 'server_vad', silence_duration_ms: SILENCE_DURATION_MS },
              },
            },
          },
        }),
      ),
    );
    ws.on('message', (data) => {
      const event = JSON.parse(data.toString()) as { type: string };
      marks[event.type] ??= performance.now();
      if (event.type === 'session.created') void stream();
      if (event.type === 'response.output_audio.delta') {
        clearTimeout(timer);
        const stopped = marks['input_audio_buffer.speech_stopped']!;
        resolve({
          fromStopped: marks['response.output_audio.delta']! - stopped,
          fromSpeechEnd: marks['response.output_audio.delta']! - speechEndAt,
          transcript: (marks['conversation.item.input_audio_transcription.completed'] ?? NaN) - stopped,
        });
        ws.close();
      }
    });
    ws.on('error', reject);
  });
}
