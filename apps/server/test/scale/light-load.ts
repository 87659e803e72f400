/** One request of the light load: when it started and ended (ms since the load began), its outcome. */
export interface Sample {
  start: number;
  end: number;
  status: number;
  /** The REST error `type` of a failure ('' when the body was not the REST error shape). */
  type: string | null;
}

/**
 * A light, steady load: `request` is called in a loop by `concurrency` callers until stop(); every
 * outcome is kept with its timing, so a test can say what clients saw before, during and after a fault.
 */
export function lightLoad(request: () => Promise<Response>, concurrency = 2, pauseMs = 50) {
  const began = Date.now();
  const samples: Sample[] = [];
  let running = true;
  const loops = Array.from({ length: concurrency }, async () => {
    while (running) {
      const start = Date.now() - began;
      let status = 0;
      let type: string | null = null;
      try {
        const res = await request();
        status = res.status;
        const text = await res.text();
        if (status >= 400) {
          try {
            type = (JSON.parse(text) as { error?: { type?: string } }).error?.type ?? '';
          } catch {
            type = '';
          }
        }
      } catch (err) {
        type = `network: ${(err as Error).message}`;
      }
      samples.push({ start, end: Date.now() - began, status, type });
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  });
  return {
    samples,
    /** ms since the load began. */
    now: () => Date.now() - began,
    async stop() {
      running = false;
      await Promise.all(loops);
      return samples;
    },
  };
}

/** Statuses with their counts, e.g. { '200': 40, '503 service_unavailable': 12 }. */
export function tally(samples: Sample[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples) {
    const k = s.type === null ? String(s.status) : `${s.status} ${s.type}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}
