import type { RouteModule } from '../app-state.js';
import type { ServiceMetrics } from '../observability/metrics.js';
import type { RouteTable } from '../routing/route-table.js';

export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

/**
 * How long /readyz waits for one check: a dependency that has not answered by then is reported as
 * failing. The checks run side by side, so the probe answers within about this long whatever is stuck
 * (a load balancer's probe times out after a few seconds; one that times out learns nothing).
 */
export const READINESS_CHECK_TIMEOUT_MS = 3_000;

/**
 * /healthz (process is up) and /readyz (dependencies answer) are public so orchestrators can probe
 * them without a key; they reveal nothing. /metrics and the OpenAPI document need a key unless
 * metrics are made public by configuration.
 */
export function healthRoutes(checks: ReadinessCheck[], details?: () => Record<string, string>): RouteModule {
  return {
    register(routes: RouteTable) {
      routes.add({
        method: 'get',
        path: '/healthz',
        summary: 'Liveness',
        tags: ['operations'],
        responses: { '200': { description: 'OK' } },
        handlers: [
          (ctx) => {
            ctx.body = { status: 'ok' };
          },
        ],
      });
      routes.add({
        method: 'get',
        path: '/readyz',
        summary: 'Readiness',
        tags: ['operations'],
        responses: {
          '200': { description: 'Every dependency answers' },
          '503': { description: 'A dependency does not answer (its check says why)' },
        },
        handlers: [
          async (ctx) => {
            const outcomes = await Promise.all(checks.map((c) => checkWithin(c, READINESS_CHECK_TIMEOUT_MS)));
            const results: Record<string, string> = {};
            checks.forEach((c, i) => (results[c.name] = outcomes[i]!));
            const ready = outcomes.every((o) => o === 'ok');
            ctx.status = ready ? 200 : 503;
            // `details`: facts about optional capabilities that do not decide readiness.
            ctx.body = { status: ready ? 'ready' : 'not_ready', checks: results, ...(details ? { details: details() } : {}) };
          },
        ],
      });
    },
  };
}

/** 'ok', or 'failing: <why>' (its error, or that it did not answer within `ms`). */
async function checkWithin(c: ReadinessCheck, ms: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`failing: no answer within ${ms} ms`), ms);
  });
  const outcome = c.check().then(
    () => 'ok',
    (err: unknown) => `failing: ${(err as Error).message}`,
  );
  try {
    return await Promise.race([outcome, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export function metricsRoute(metrics: ServiceMetrics): RouteModule {
  return {
    register(routes: RouteTable) {
      routes.add({
        method: 'get',
        path: '/metrics',
        summary: 'Prometheus metrics',
        tags: ['operations'],
        responses: { '200': { description: 'Prometheus text format', content: { 'text/plain': null } } },
        handlers: [
          async (ctx) => {
            const { contentType, body } = await metrics.render();
            ctx.type = contentType;
            ctx.body = body;
          },
        ],
      });
    },
  };
}

export function openApiRoute(info: { title: string; version: string; description?: string }): RouteModule {
  return {
    register(routes: RouteTable) {
      let cached: Record<string, unknown> | null = null;
      routes.add({
        method: 'get',
        path: '/v1/openapi.json',
        summary: 'This OpenAPI 3.1 document',
        tags: ['operations'],
        responses: { '200': { description: 'OpenAPI document', content: { 'application/json': null } } },
        handlers: [
          (ctx) => {
            cached ??= routes.document(info);
            ctx.body = cached;
          },
        ],
      });
    },
  };
}
