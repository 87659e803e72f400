import { dataUri, samplePhoto } from '../../test/video/video-helpers.js';

/** About 2.5 s of speech: a short render, so the step stays bounded in time. */
const SHORT_INPUT = 'Hello, this is a short render for the load test.';

export interface RenderSample {
  /** Create-to-completed time of each video that completed. */
  completedMs: number[];
  failed: number;
  /** From the first create to the last video finishing. */
  wallMs: number;
}

/**
 * `count` short videos created at once (round-robin over `urls`), each polled on the next API process
 * until it finishes or `timeoutMs` passes: the time users wait for a render, and how many a setup
 * finishes per minute when several arrive together.
 */
export async function renderStep(urls: string[], apiKey: string, count: number, timeoutMs = 240_000): Promise<RenderSample> {
  const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
  const body = JSON.stringify({ ref_image: dataUri(samplePhoto(1), 'image/jpeg'), input_tts: { input: SHORT_INPUT } });
  const started = performance.now();
  const one = async (i: number): Promise<number | null> => {
    const t0 = performance.now();
    const res = await fetch(`${urls[i % urls.length]}/v1/videos`, { method: 'POST', headers, body });
    if (!res.ok) return null;
    const { id } = (await res.json()) as { id: string };
    const statusUrl = `${urls[(i + 1) % urls.length]}/v1/videos/${id}`;
    while (performance.now() - t0 < timeoutMs) {
      const { status } = (await (await fetch(statusUrl, { headers })).json()) as { status: string };
      if (status === 'completed') return performance.now() - t0;
      if (status === 'failed') return null;
      await new Promise((r) => setTimeout(r, 100));
    }
    return null;
  };
  const times = await Promise.all(Array.from({ length: count }, (_, i) => one(i)));
  const completedMs = times.filter((t): t is number => t !== null);
  return { completedMs, failed: count - completedMs.length, wallMs: performance.now() - started };
}
