import autocannon from 'autocannon';

/** One request shape of the load (autocannon sends it over and over on every connection). */
export interface HttpScenario {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

export interface StepSample {
  latenciesMs: number[];
  ok: number;
  errors: number;
  durationS: number;
}

/**
 * `connections` concurrent clients for `durationS`, split evenly over the given servers (one
 * autocannon per server, run together); every response's latency and status is kept.
 */
export async function httpStep(
  urls: string[],
  apiKey: string,
  scenario: HttpScenario,
  connections: number,
  durationS: number,
): Promise<StepSample> {
  const sample: StepSample = { latenciesMs: [], ok: 0, errors: 0, durationS };
  const runs = urls.map((url, i) => {
    const share = Math.floor(connections / urls.length) + (i < connections % urls.length ? 1 : 0);
    if (share === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const instance = autocannon(
        {
          url: url + scenario.path,
          method: scenario.method,
          connections: share,
          duration: durationS,
          timeout: 30,
          headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
          ...(scenario.body === undefined ? {} : { body: JSON.stringify(scenario.body) }),
        },
        (err) => (err ? reject(err) : resolve()),
      );
      instance.on('response', (_client, statusCode, _bytes, responseTime) => {
        sample.latenciesMs.push(responseTime);
        if (statusCode >= 200 && statusCode < 300) sample.ok++;
        else sample.errors++;
      });
      instance.on('reqError', () => sample.errors++);
    });
  });
  await Promise.all(runs);
  return sample;
}
