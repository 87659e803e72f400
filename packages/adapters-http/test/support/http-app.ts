import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { InvalidApiKeyError, LargeBodyLimit, silentLogger, type Principal } from '@svc/core';
import { createHttpApp, type HttpApp } from '../../src/app.js';
import type { RouteModule } from '../../src/app-state.js';
import type { ApiRoute } from '../../src/routing/route-table.js';
import { ServiceMetrics } from '../../src/observability/metrics.js';

/** The one key these tests authenticate with (the real key store lives in another adapter). */
export const TEST_KEY = 'sk-test-adapters-http';
export const TEST_PRINCIPAL: Principal = { apiKeyId: 'key_test', name: 'test' };

export interface RunningApp {
  app: HttpApp;
  url: string;
  /** fetch with the test key. */
  call(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/** The real HTTP app (middleware, routers, error mapper) with the given modules, on a free loopback port. */
export async function startApp(modules: {
  api?: RouteModule[];
  public?: RouteModule[];
  maxLargeBodiesPerKey?: number;
}): Promise<RunningApp> {
  const app = createHttpApp({
    logger: silentLogger,
    metrics: new ServiceMetrics(),
    authenticate: async (secret) => {
      if (secret !== TEST_KEY) throw new InvalidApiKeyError();
      return TEST_PRINCIPAL;
    },
    publicModules: modules.public ?? [],
    modules: modules.api ?? [],
    ...(modules.maxLargeBodiesPerKey !== undefined ? { largeBodies: new LargeBodyLimit(modules.maxLargeBodiesPerKey) } : {}),
  });
  const server: Server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    app,
    url,
    call: (path, init = {}) =>
      fetch(`${url}${path}`, { ...init, headers: { Authorization: `Bearer ${TEST_KEY}`, ...(init.headers as Record<string, string>) } }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The REST error body of a response (asserting its shape). */
export async function errorOf(res: Response): Promise<{ message: string; type: string; code: string; param: string | null }> {
  const body = (await res.json()) as { error: { message: string; type: string; code: string; param: string | null } };
  if (!body.error || body.error.type !== body.error.code) throw new Error(`not a REST error body: ${JSON.stringify(body)}`);
  return body.error;
}

/** A module of one test route: its method, path and handlers, with the description a route needs and these tests do not. */
export function testRoute(method: ApiRoute['method'], path: string, ...handlers: ApiRoute['handlers']): RouteModule {
  return { register: (routes) => routes.add({ method, path, summary: path, tags: ['test'], responses: {}, handlers }) };
}
