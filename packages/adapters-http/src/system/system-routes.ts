import type { AppRouter, RouteModule } from '../app-state.js';
import type { OpenApiRegistry } from '../openapi/openapi-registry.js';
import type { ServiceMetrics } from '../observability/metrics.js';

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
    register(router: AppRouter, openapi: OpenApiRegistry) {
      router.get('/healthz', (ctx) => {
        ctx.body = { status: 'ok' };
      });
      router.get('/readyz', async (ctx) => {
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
      });
      for (const path of ['/healthz', '/readyz']) {
        openapi.add({ method: 'get', path, summary: path === '/healthz' ? 'Liveness' : 'Readiness', tags: ['operations'], public: true, responses: { '200': { description: 'OK' } } });
      }
    },
  };
}

export function metricsRoute(metrics: ServiceMetrics): RouteModule {
  return {
    register(router: AppRouter, openapi: OpenApiRegistry) {
      router.get('/metrics', async (ctx) => {
        const { contentType, body } = await metrics.render();
        ctx.type = contentType;
        ctx.body = body;
      });
      openapi.add({ method: 'get', path: '/metrics', summary: 'Prometheus metrics', tags: ['operations'], responses: { '200': { description: 'Prometheus text format', content: { 'text/plain': null } } } });
    },
  };
}

export function openApiRoute(info: { title: string; version: string; description?: string }): RouteModule {
  return {
    register(router: AppRouter, openapi: OpenApiRegistry) {
      openapi.add({ method: 'get', path: '/v1/openapi.json', summary: 'This OpenAPI 3.1 document', tags: ['operations'], responses: { '200': { description: 'OpenAPI document', content: { 'application/json': null } } } });
      let cached: Record<string, unknown> | null = null;
      router.get('/v1/openapi.json', (ctx) => {
        cached ??= openapi.document(info);
        ctx.body = cached;
      });
    },
  };
}
