import { startServerProcess } from './dist/test/helpers/server-process.js';
import { treeCpu, cpuSince } from './dist/bench/process-cpu.js';
import { spawnSync, spawn } from 'node:child_process';
import WebSocket from 'ws';
import { readFileSync } from 'node:fs';
const env = {
  SVC_LOG_LEVEL: 'warn',
  SVC_ASR_ENGINE: process.env.ASR ?? 'off',
  SVC_VAD_ENGINE: process.env.VAD ?? 'off',
  SVC_ASR_WARM_DECODERS: '5',
};
const s = await startServerProcess({ env, readyTimeoutMs: 180000 });
const wav = readFileSync('/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav');
const pcm = wav.subarray(wav.indexOf('data') + 8);
const N = Number(process.env.N ?? 5),
  SECS = Number(process.env.SECS ?? 20),
  STEP = Number(process.env.STEP ?? 20);
try {
  for (let i = 0; i < 90; i++) {
    const c0 = treeCpu(s.pid).process;
    await new Promise((r) => setTimeout(r, 2000));
    const used = treeCpu(s.pid).process - c0;
    if (used < 100) {
      console.log('settled after', (i + 1) * 2, 's');
      break;
    }
  }
  const socks = await Promise.all(
    Array.from(
      { length: N },
      () =>
        new Promise((res) => {
          const ws = new WebSocket(`${s.wsUrl}/v1/realtime?model=svc-realtime`, { headers: { Authorization: `Bearer ${s.apiKey}` } });
          ws.on('open', () =>
            ws.send(
              JSON.stringify({
                type: 'session.update',
                session: {
                  type: 'realtime',
                  output_modalities: ['text'],
                  audio: { input: { format: { type: 'audio/pcm', rate: 16000 }, turn_detection: { type: 'server_vad' } } },
                },
              }),
            ),
          );
          ws.on('message', (d) => {
            if (JSON.parse(d).type === 'session.created') res(ws);
          });
        }),
    ),
  );
  const perf = process.env.PERF
    ? spawn(
        'perf',
        [
          'record',
          '-e',
          'cpu-clock',
          '-F',
          '499',
          '-g',
          '-p',
          String(s.pid),
          '-o',
          '/tmp/cap/ingest.perf',
          '--',
          'sleep',
          String(SECS - 2),
        ],
        { stdio: 'ignore' },
      )
    : null;
  const a = treeCpu(s.pid);
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < SECS * 1000) {
    const off = (n * STEP * 32) % (pcm.length - STEP * 32);
    for (const ws of socks)
      ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: pcm.subarray(off, off + STEP * 32).toString('base64') }));
    n++;
    const due = t0 + n * STEP - performance.now();
    if (due > 0) await new Promise((r) => setTimeout(r, due));
  }
  const d = cpuSince(a, treeCpu(s.pid));
  const ss = (N * (performance.now() - t0)) / 1000;
  console.log(
    `N=${N} step=${STEP}ms VAD=${env.SVC_VAD_ENGINE} ASR=${env.SVC_ASR_ENGINE}: per session-second: process ${(d.process / ss).toFixed(1)} ms (threads ${JSON.stringify(Object.fromEntries(Object.entries(d.threads).map(([k, v]) => [k, (v / ss).toFixed(1)])))}), decoders ${(d.children / ss).toFixed(1)} ms`,
  );
  if (perf) await new Promise((r) => perf.on('exit', r));
  for (const ws of socks) ws.close();
} finally {
  await s.stop();
}
