import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { OpenAiCompatibleLanguageModel } from '@svc/adapters-language-model';
import type { LanguageModelEvent, LanguageModelRequest } from '@svc/core';
import { percentile, round } from './harness.js';

/**
 * The upstream: a chat-completions server in its own process (so this process's CPU time is the
 * client's alone) that streams a scripted reply: TEXT_CHUNKS text deltas, or (`/tools/...`) two tool
 * calls whose arguments come in TOOL_FRAGMENTS pieces. The whole reply in one write, or (`/paced/...`)
 * one write per event a timer tick apart, as a model streaming tokens sends it (one network read per
 * event on the client).
 */
const TEXT_CHUNKS = 100;
const TOOL_FRAGMENTS = 40;
const UPSTREAM = `
const http = require('node:http');
const chunk = (delta, finish = null) => 'data: ' + JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] }) + '\\n\\n';
const text = [chunk({ role: 'assistant', content: '' }), ...Array.from({ length: ${TEXT_CHUNKS} }, (_, i) => chunk({ content: 'tok' + (i % 10) + ' ' })), chunk({}, 'stop'), 'data: [DONE]\\n\\n'].join('');
const args = JSON.stringify({ city: 'Paris', days: [1, 2, 3], note: 'x'.repeat(200) });
const piece = Math.ceil(args.length / ${TOOL_FRAGMENTS});
const toolCall = (index, id, name) => [chunk({ tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] }), ...Array.from({ length: ${TOOL_FRAGMENTS} }, (_, i) => chunk({ tool_calls: [{ index, function: { arguments: args.slice(i * piece, (i + 1) * piece) } }] }))];
const tools = [chunk({ role: 'assistant', content: null }), ...toolCall(0, 'call_a', 'get_weather'), ...toolCall(1, 'call_b', 'get_time'), chunk({}, 'tool_calls'), 'data: [DONE]\\n\\n'].join('');
http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const body = req.url.endsWith('/tools/chat/completions') ? tools : text;
    if (!req.url.startsWith('/paced/')) return res.end(body);
    const events = body.split(/(?<=\\n\\n)/);
    const next = () => (events.length === 0 ? res.end() : (res.write(events.shift()), setTimeout(next, 0)));
    next();
  });
}).listen(0, '127.0.0.1', function () { process.stdout.write(String(this.address().port) + '\\n'); });
`;

async function startUpstream(): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, ['-e', UPSTREAM], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  return { port: Number(line.toString().trim()), child };
}

function request(): LanguageModelRequest {
  return {
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is the weather in Paris?' },
    ],
    tools: [{ name: 'get_weather', description: 'Weather', parameters: { type: 'object' } }],
    toolChoice: 'auto',
    temperature: 0.7,
    maxOutputTokens: null,
    signal: new AbortController().signal,
  };
}

/** Runs one stream to its end: ms to the first event and to the last, and the events seen. */
async function timedStream(model: OpenAiCompatibleLanguageModel): Promise<{ firstMs: number; totalMs: number; events: number }> {
  const started = performance.now();
  let firstMs = 0;
  let events = 0;
  for await (const e of model.stream(request()) as AsyncIterable<LanguageModelEvent>) {
    if (events++ === 0) firstMs = performance.now() - started;
  }
  return { firstMs, totalMs: performance.now() - started, events };
}

/**
 * `npm run bench -- language-model`: the OpenAI-compatible client against a local upstream that
 * answers at once, so what is measured is the client itself: latency to the first and last event,
 * and this process's CPU time per stream (the load-independent figure).
 */
export async function benchLanguageModel(): Promise<Record<string, number | string>> {
  const upstream = await startUpstream();
  try {
    const base = `http://127.0.0.1:${upstream.port}`;
    const text = new OpenAiCompatibleLanguageModel({ baseUrl: `${base}/v1`, model: 'm' });
    const tools = new OpenAiCompatibleLanguageModel({ baseUrl: `${base}/tools`, model: 'm' });
    const paced = new OpenAiCompatibleLanguageModel({ baseUrl: `${base}/paced/v1`, model: 'm' });
    for (let i = 0; i < 30; i++) await timedStream(text); // warm up (JIT, keep-alive sockets)
    const results: Record<string, number | string> = {};
    for (const [name, model, n] of [
      ['text', text, 300],
      ['tool calls', tools, 300],
      ['text, one read per event', paced, 100],
    ] as const) {
      const cpu = process.cpuUsage();
      const runs = [];
      for (let i = 0; i < n; i++) runs.push(await timedStream(model));
      const used = process.cpuUsage(cpu);
      results[`${name}: events per stream`] = runs[0]!.events;
      results[`${name}: first event p50 / p95 (ms)`] = `${round(
        percentile(
          runs.map((r) => r.firstMs),
          50,
        ),
      )} / ${round(
        percentile(
          runs.map((r) => r.firstMs),
          95,
        ),
      )}`;
      results[`${name}: whole stream p50 / p95 (ms)`] = `${round(
        percentile(
          runs.map((r) => r.totalMs),
          50,
        ),
      )} / ${round(
        percentile(
          runs.map((r) => r.totalMs),
          95,
        ),
      )}`;
      results[`${name}: client CPU per stream (ms)`] = round((used.user + used.system) / 1000 / n, 3);
    }
    // Eight streams at once: what a busy voice server does.
    const cpu = process.cpuUsage();
    const started = performance.now();
    const concurrent = await Promise.all(
      Array.from({ length: 200 }, (_, i) => i).reduce<Promise<unknown>[]>((lanes, i) => {
        const lane = i % 8;
        lanes[lane] = (lanes[lane] ?? Promise.resolve()).then(() => timedStream(text));
        return lanes;
      }, []),
    );
    const used = process.cpuUsage(cpu);
    results['8 concurrent: streams per second'] = round(200 / ((performance.now() - started) / 1000), 1);
    results['8 concurrent: client CPU per stream (ms)'] = round((used.user + used.system) / 1000 / 200, 3);
    void concurrent;
    results['load average'] = (await import('node:os'))
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
    return results;
  } finally {
    upstream.child.kill();
  }
}
