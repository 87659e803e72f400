// A realtime client that floods the server, in a worker thread of its own so the sending loop never
// delays the test's own measurements (the /healthz poller, a well-behaved session) on the main thread.
import { parentPort, workerData } from 'node:worker_threads';
import WebSocket from 'ws';

export interface FloodOptions {
  wsUrl: string;
  apiKey: string;
  /** What to send over and over: a text frame, or bytes sent as binary frames. */
  frame: string | Uint8Array;
  /** How long to keep sending if the server does not stop it. */
  seconds: number;
}

export interface FloodResult {
  /** Frames handed to the socket. */
  sent: number;
  /** ms from the first flood frame to the close (null when the server never closed the socket). */
  closedAfterMs: number | null;
  close: { code: number; reason: string } | null;
  /** error events received, by code. */
  errors: Record<string, number>;
  /** Events of other types received. */
  otherEvents: number;
}

/** Keeps this much queued in the client: the socket is always full, whatever the server reads. */
const CLIENT_QUEUE_BYTES = 1024 * 1024;
const FRAMES_PER_TURN = 5000;

function flood(options: FloodOptions): Promise<FloodResult> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${options.wsUrl}/v1/realtime?model=svc-realtime`, { headers: { Authorization: `Bearer ${options.apiKey}` } });
    const result: FloodResult = { sent: 0, closedAfterMs: null, close: null, errors: {}, otherEvents: 0 };
    let started = 0;
    let stoppedByUs = false;
    const binary = typeof options.frame !== 'string';
    ws.on('error', () => undefined);
    ws.on('message', (data) => {
      const event = JSON.parse(data.toString()) as { type: string; error?: { code?: string } };
      if (event.type === 'session.created') {
        started = performance.now();
        pump();
      } else if (event.type === 'error') {
        const code = event.error?.code ?? 'none';
        result.errors[code] = (result.errors[code] ?? 0) + 1;
      } else result.otherEvents++;
    });
    ws.on('close', (code, reason) => {
      if (!stoppedByUs && started > 0 && result.close === null) {
        result.close = { code, reason: reason.toString() };
        result.closedAfterMs = Math.round(performance.now() - started);
      }
      resolve(result);
    });
    ws.on('open', () => {
      ws.send(
        JSON.stringify({
          type: 'session.update',
          session: { type: 'realtime', model: 'svc-realtime', output_modalities: ['text'], audio: { input: { turn_detection: null } } },
        }),
      );
    });
    const pump = () => {
      const deadline = started + options.seconds * 1000;
      if (ws.readyState !== WebSocket.OPEN) return;
      if (performance.now() >= deadline) {
        // The server let the flood run its course: stop it from this side.
        stoppedByUs = true;
        ws.terminate();
        return;
      }
      // Bounded per turn: a socket the server destroyed still reads OPEN until this loop yields.
      for (let i = 0; i < FRAMES_PER_TURN && ws.readyState === WebSocket.OPEN && ws.bufferedAmount < CLIENT_QUEUE_BYTES; i++) {
        ws.send(options.frame, { binary });
        result.sent++;
      }
      setImmediate(pump);
    };
  });
}

void flood(workerData as FloodOptions).then((result) => parentPort!.postMessage(result));
