import type { RouteModule } from '../app-state.js';
import type { ServiceMetrics } from '../observability/metrics.js';
import type { RouteTable } from '../routing/route-table.js';

export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

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
            const results: Record<string, string> = {};
            let ready = true;
            for (const c of checks) {
              try {
                await c.check();
                results[c.name] = 'ok';
              } catch (err) {
                ready = false;
                results[c.name] = `failing: ${(err as Error).message}`;
              }
            }
            ctx.status = ready ? 200 : 503;
            // `details`: facts about optional capabilities that do not decide readiness.
            ctx.body = { status: ready ? 'ready' : 'not_ready', checks: results, ...(details ? { details: details() } : {}) };
          },
        ],
      });
    },
  };
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
