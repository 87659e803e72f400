import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServerProcess, type ServerProcess } from '../test/helpers/server-process.js';
import { dataUri, samplePhoto } from '../test/video/video-helpers.js';
import { newKey, REFERENCE_CLIP, startApiCluster } from '../test/scale/scale-stack.js';
import { percentile, round } from './harness.js';
import { cpuMs, machineCpu } from './load/cpu.js';
import { httpStep, type HttpScenario, type StepSample } from './load/http-step.js';
import { realtimeStep } from './load/realtime-step.js';
import { renderStep } from './load/render-step.js';
import { svgPlot, type Panel } from './load/svg-plot.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * `npm run load [-- --quick] [--setups=one,two] [--scenarios=speech,voices,videos,realtime] [--levels=1,2,4]
 * [--seconds=6] [--renders=3] [--out=DIR]`: drives speech, voices, videos and realtime at
 * increasing concurrency against real server PROCESSES on loopback: the one-process default (SQLite,
 * in-process limits) and two API processes on one Postgres + one Redis. Bounded: a fixed number of
 * steps of a fixed duration each. Prints one markdown table per setup and writes the SVG plot and the
 * raw rows to docs/load/. The `renders` scenario creates `--renders` (1-4) short videos at once on each
 * setup (its processes render: SVC_ROLE defaults to both) and reports time-to-completed and renders/min.
 */
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const setupsArg = args.find((a) => a.startsWith('--setups='))?.slice('--setups='.length) ?? 'one,two';
const outDir = args.find((a) => a.startsWith('--out='))?.slice('--out='.length);
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const LEVELS = option('levels')?.split(',').map(Number) ?? (quick ? [1, 4, 16] : [1, 2, 4, 8, 16, 32]);
const STEP_S = Number(option('seconds') ?? (quick ? 3 : 6));

/** What each scenario does; `videos` is the API side (status polls), `renders` a few short renders at once. */
type ScenarioName = 'speech' | 'voices' | 'videos' | 'realtime' | 'renders';
const ALL_SCENARIOS = (option('scenarios')?.split(',') ?? ['speech', 'voices', 'videos', 'realtime', 'renders']) as ScenarioName[];
/** The stepped scenarios (concurrency levels); `renders` is one bounded batch. */
const SCENARIOS = ALL_SCENARIOS.filter((s): s is Exclude<ScenarioName, 'renders'> => s !== 'renders');
const RENDERS = Math.min(4, Math.max(1, Number(option('renders') ?? 3)));

interface RenderRow {
  setup: string;
  videos: number;
  completed: number;
  p50: number;
  p95: number;
  perMinute: number;
  machineBusy: number;
}

interface Row {
  setup: string;
  scenario: ScenarioName;
  concurrency: number;
  throughput: number;
  p50: number;
  p95: number;
  p99: number;
  errorRate: number;
  serverCpu: number;
  machineBusy: number;
}

const LOAD_ENV = {
  SVC_LOG_LEVEL: 'warn',
  SVC_RATE_LIMIT_PER_MINUTE: '0',
  SVC_REALTIME_MAX_SESSIONS: '5000',
  SVC_REALTIME_MAX_SESSIONS_PER_KEY: '5000',
  // Text turns at full speed: throughput is measured here, not the voice capacity (voice-loop).
  SVC_REALTIME_CAPACITY: 'off',
};

async function prepare(urls: string[], apiKey: string): Promise<{ videoId: string }> {
  const post = (path: string, body: unknown) =>
    fetch(urls[0] + path, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  const voice = await post('/v1/audio/voices', { ref_audio: readFileSync(REFERENCE_CLIP).toString('base64') });
  if (!voice.ok) throw new Error(`voice registration: ${voice.status} ${await voice.text()}`);
  const video = await post('/v1/videos', { ref_image: dataUri(samplePhoto(1), 'image/jpeg'), input_tts: { input: 'Hello.' } });
  const { id } = (await video.json()) as { id: string };
  if (!video.ok) throw new Error(`video: ${video.status}`);
  // Wait for the render to end so it does not eat the CPU of the steps.
  for (const started = Date.now(); Date.now() - started < 300_000; await new Promise((r) => setTimeout(r, 500))) {
    const status = (
      (await (await fetch(`${urls[urls.length - 1]}/v1/videos/${id}`, { headers: { Authorization: `Bearer ${apiKey}` } })).json()) as {
        status: string;
      }
    ).status;
    if (status === 'completed' || status === 'failed') break;
  }
  return { videoId: id };
}

function httpScenario(name: 'speech' | 'voices' | 'videos', videoId: string): HttpScenario {
  if (name === 'speech')
    return {
      method: 'POST',
      path: '/v1/audio/speech',
      body: { input: 'The quick brown fox jumps over the lazy dog.', response_format: 'pcm' },
    };
  if (name === 'voices') return { method: 'GET', path: '/v1/audio/voices' };
  return { method: 'GET', path: `/v1/videos/${videoId}` };
}

async function runSetup(setup: string, procs: ServerProcess[], apiKey: string): Promise<Row[]> {
  const urls = procs.map((p) => p.url);
  const { videoId } = await prepare(urls, apiKey);
  const rows: Row[] = [];
  for (const scenario of SCENARIOS) {
    for (const c of LEVELS) {
      const cpuBefore = procs.reduce((n, p) => n + cpuMs(p.pid), 0);
      const machineBefore = machineCpu();
      const started = performance.now();
      const sample: StepSample =
        scenario === 'realtime'
          ? await realtimeStep(
              procs.map((p) => p.wsUrl),
              apiKey,
              c,
              STEP_S,
            )
          : await httpStep(urls, apiKey, httpScenario(scenario, videoId), c, STEP_S);
      const seconds = (performance.now() - started) / 1000;
      const machineAfter = machineCpu();
      const busy = 1 - (machineAfter.idle - machineBefore.idle) / Math.max(1, machineAfter.total - machineBefore.total);
      const total = sample.ok + sample.errors;
      const row: Row = {
        setup,
        scenario,
        concurrency: c,
        throughput: round(sample.ok / seconds, 1),
        p50: round(percentile(sample.latenciesMs, 50), 1),
        p95: round(percentile(sample.latenciesMs, 95), 1),
        p99: round(percentile(sample.latenciesMs, 99), 1),
        errorRate: total ? round((100 * sample.errors) / total, 2) : 0,
        serverCpu: round((procs.reduce((n, p) => n + cpuMs(p.pid), 0) - cpuBefore) / (seconds * 10), 0),
        machineBusy: round(100 * busy, 0),
      };
      rows.push(row);
      process.stderr.write(`${JSON.stringify(row)}\n`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  return rows;
}

async function runRenders(setup: string, urls: string[], apiKey: string): Promise<RenderRow> {
  const machineBefore = machineCpu();
  const sample = await renderStep(urls, apiKey, RENDERS);
  const machineAfter = machineCpu();
  const row: RenderRow = {
    setup,
    videos: RENDERS,
    completed: sample.completedMs.length,
    p50: round(percentile(sample.completedMs, 50) / 1000, 1),
    p95: round(percentile(sample.completedMs, 95) / 1000, 1),
    perMinute: round((sample.completedMs.length * 60_000) / sample.wallMs, 1),
    machineBusy: round(100 * (1 - (machineAfter.idle - machineBefore.idle) / Math.max(1, machineAfter.total - machineBefore.total)), 0),
  };
  process.stderr.write(`${JSON.stringify(row)}\n`);
  return row;
}

function renderMarkdown(rows: RenderRow[]): string {
  const out = [
    '| setup | short videos at once | completed | time to completed p50 s | p95 s | renders/min | machine busy % |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) out.push(`| ${r.setup} | ${r.videos} | ${r.completed} | ${r.p50} | ${r.p95} | ${r.perMinute} | ${r.machineBusy} |`);
  return out.join('\n');
}

/** The first step whose throughput gains less than 10% over the best before it: the knee. */
function saturation(rows: Row[]): string {
  let best = rows[0];
  for (const r of rows.slice(1)) {
    if (!best || r.throughput < best.throughput * 1.1) return `${best?.concurrency} clients, ${best?.throughput}/s (p95 ${best?.p95} ms)`;
    best = r;
  }
  return `not reached by ${best?.concurrency} clients (${best?.throughput}/s)`;
}

function markdown(rows: Row[]): string {
  const out = [
    '| setup | scenario | clients | ok/s | p50 ms | p95 ms | p99 ms | errors % | server CPU % | machine busy % |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows)
    out.push(
      `| ${r.setup} | ${r.scenario} | ${r.concurrency} | ${r.throughput} | ${r.p50} | ${r.p95} | ${r.p99} | ${r.errorRate} | ${r.serverCpu} | ${r.machineBusy} |`,
    );
  out.push('', '| setup | scenario | saturates at |', '|---|---|---|');
  for (const setup of [...new Set(rows.map((r) => r.setup))]) {
    for (const s of SCENARIOS) {
      const of = rows.filter((r) => r.setup === setup && r.scenario === s);
      if (of.length) out.push(`| ${setup} | ${s} | ${saturation(of)} |`);
    }
  }
  return out.join('\n');
}

function plot(rows: Row[]): string {
  const colors: Record<string, string> = { 'one process': '#1f77b4', 'two APIs': '#d62728' };
  const panels: Panel[] = [];
  for (const [measure, label] of [
    ['throughput', 'ok responses/s'],
    ['p95', 'p95 latency (ms)'],
  ] as const) {
    for (const s of SCENARIOS) {
      panels.push({
        title: `${s}: ${measure === 'throughput' ? 'throughput' : 'p95 latency'}`,
        yLabel: label,
        series: [...new Set(rows.map((r) => r.setup))].map((setup) => ({
          label: setup,
          color: colors[setup] ?? '#2ca02c',
          points: rows.filter((r) => r.setup === setup && r.scenario === s).map((r) => [r.concurrency, r[measure]] as [number, number]),
        })),
      });
    }
  }
  return svgPlot(`Load on ${cpus().length} cores (shared machine): one process vs two API processes on Postgres + Redis`, panels, 4);
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const renderRows: RenderRow[] = [];
  const setups = setupsArg.split(',');
  if (setups.includes('one')) {
    const one = await startServerProcess({ env: LOAD_ENV });
    try {
      rows.push(...(await runSetup('one process', [one], one.apiKey)));
      if (ALL_SCENARIOS.includes('renders')) renderRows.push(await runRenders('one process', [one.url], one.apiKey));
    } finally {
      await one.stop();
    }
  }
  if (setups.includes('two')) {
    const postgres =
      process.env.SVC_TEST_POSTGRES_URL || execFileSync('bash', ['scripts/start-postgres.sh'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const redis =
      process.env.SVC_TEST_REDIS_URL || execFileSync('bash', ['scripts/start-redis.sh'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const key = newKey('load');
    const cluster = await startApiCluster(2, { ...LOAD_ENV, SVC_API_KEYS: key }, { postgres, redis });
    try {
      rows.push(...(await runSetup('two APIs', cluster.apis, key)));
      if (ALL_SCENARIOS.includes('renders'))
        renderRows.push(
          await runRenders(
            'two APIs',
            cluster.apis.map((p) => p.url),
            key,
          ),
        );
    } finally {
      await cluster.stop();
    }
  }
  const dir = outDir ?? join(ROOT, 'docs', 'load');
  mkdirSync(dir, { recursive: true });
  if (rows.length) {
    writeFileSync(join(dir, 'load.svg'), plot(rows));
    writeFileSync(
      join(dir, 'load-rows.json'),
      JSON.stringify({ at: new Date().toISOString(), levels: LEVELS, stepSeconds: STEP_S, rows }, null, 1),
    );
    process.stdout.write(`\n## load (${STEP_S} s per step; plot: docs/load/load.svg)\n\n${markdown(rows)}\n`);
  }
  if (renderRows.length) process.stdout.write(`\n## renders (${RENDERS} short videos created at once)\n\n${renderMarkdown(renderRows)}\n`);
}

main().catch((err) => {
  process.stderr.write(`load failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
