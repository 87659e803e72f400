import WebSocket from 'ws';
import type { StepSample } from './http-step.js';

type Event = { type: string } & Record<string, unknown>;

/**
 * One realtime "turn" as a client lives it, start to end: connect, session.update -> session.created,
 * one user message + response.create -> response.done, close. Resolves with its duration, or rejects
 * (a refusal close such as 1013, an error event, a timeout).
 */
function oneTurn(wsUrl: string, apiKey: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${wsUrl}/v1/realtime`, { headers: { Authorization: `Bearer ${apiKey}` }, perMessageDeflate: false });
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error('timeout'));
    }, 30_000);
    const fail = (why: string) => {
      clearTimeout(timer);
      ws.terminate();
      reject(new Error(why));
    };
    ws.on('error', (err) => fail(String(err)));
    ws.on('close', (code) => fail(`closed ${code}`));
    ws.on('open', () =>
      ws.send(
        JSON.stringify({
          type: 'session.update',
          session: { type: 'realtime', model: 'svc-realtime', output_modalities: ['text'], audio: { input: { turn_detection: null } } },
        }),
      ),
    );
    ws.on('message', (data) => {
      const event = JSON.parse(data.toString()) as Event;
      if (event.type === 'session.created') {
        ws.send(
          JSON.stringify({
            type: 'conversation.item.create',
            item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hello, how are you today?' }] },
          }),
        );
        ws.send(JSON.stringify({ type: 'response.create' }));
      } else if (event.type === 'error') {
        fail(`error event ${JSON.stringify(event.error)}`);
      } else if (event.type === 'response.done') {
        clearTimeout(timer);
        ws.removeAllListeners('close');
        ws.close();
        resolve(performance.now() - started);
      }
    });
  });
}

/** `concurrency` clients each running turns back to back for `durationS`, spread over the servers. */
export async function realtimeStep(wsUrls: string[], apiKey: string, concurrency: number, durationS: number): Promise<StepSample> {
  const sample: StepSample = { latenciesMs: [], ok: 0, errors: 0, durationS };
  const until = performance.now() + durationS * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, i) => {
      const url = wsUrls[i % wsUrls.length]!;
      while (performance.now() < until) {
        try {
          sample.latenciesMs.push(await oneTurn(url, apiKey));
          sample.ok++;
        } catch {
          sample.errors++;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    }),
  );
  return sample;
}
