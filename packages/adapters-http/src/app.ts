import Koa from 'koa';
import Router from '@koa/router';
import { NotFoundError, type LargeBodyLimit, type Logger, type ServiceError } from '@svc/core';
import type { AppState, RouteModule } from './app-state.js';
import { errorMiddleware } from './errors/error-middleware.js';
import { authMiddleware, type Authenticate } from './auth/auth-middleware.js';
import { largeBodiesPerKey } from './auth/large-body-limit.js';
import { OpenApiRegistry } from './openapi/openapi-registry.js';
import { requestContext } from './observability/request-context.js';
import { RouteTable } from './routing/route-table.js';
import type { ServiceMetrics } from './observability/metrics.js';

export interface HttpAppOptions {
  logger: Logger;
  authenticate: Authenticate;
  metrics: ServiceMetrics;
  /** Routes reachable without a key (health probes; /metrics when configured public). */
  publicModules: RouteModule[];
  /** Everything else: every route here requires `Authorization: Bearer <key>`. */
  modules: RouteModule[];
  /**
   * The large transfers each key may have in progress (SVC_MAX_LARGE_BODIES_PER_KEY): request bodies
   * over 1 MiB count in it here, the media downloaded for the key where it is downloaded. Unset: no limit.
   */
  largeBodies?: LargeBodyLimit;
  /**
   * Recognizes infrastructure failures the use cases let through (a database or Redis that does not
   * answer) as a ServiceError, e.g. ServiceUnavailableError (503); null leaves the error a 500.
   */
  translateError?: (err: unknown) => ServiceError | null;
}

export interface HttpApp {
  koa: Koa<AppState>;
  openapi: OpenApiRegistry;
  /** The request listener for node:http / node:https servers. */
  callback(): ReturnType<Koa['callback']>;
}

/**
 * The REST application: request context and logging, metrics, one error mapper, public routes,
 * then the authenticated API. Unknown routes are a 404 and wrong methods a 405, both in the REST
 * error shape.
 */
export function createHttpApp(options: HttpAppOptions): HttpApp {
  const koa = new Koa<AppState>();
  koa.silent = true; // errors are logged by the error middleware, never printed as stacks
  koa.proxy = false;
  const openapi = new OpenApiRegistry();

  const publicRouter = new Router<AppState>();
  const apiRouter = new Router<AppState>();
  apiRouter.use(authMiddleware(options.authenticate));
  if (options.largeBodies) apiRouter.use(largeBodiesPerKey(options.largeBodies));
  const publicRoutes = new RouteTable(publicRouter, openapi, 'public');
  const apiRoutes = new RouteTable(apiRouter, openapi, 'authenticated');
  for (const m of options.publicModules) m.register(publicRoutes);
  for (const m of options.modules) m.register(apiRoutes);

  koa.use(requestContext(options.logger));
  koa.use(options.metrics.middleware());
  koa.use(errorMiddleware(options.translateError));
  koa.use(async (ctx, next) => {
    await next();
    // Runs after the routers' allowedMethods had their chance to answer 405.
    if (ctx.status === 404 && ctx.body === undefined) {
      throw new NotFoundError(`No route for ${ctx.method} ${ctx.path}.`);
    }
  });
  koa.use(publicRouter.routes());
  koa.use(publicRouter.allowedMethods({ throw: true }));
  koa.use(apiRouter.routes());
  koa.use(apiRouter.allowedMethods({ throw: true }));

  return { koa, openapi, callback: () => koa.callback() };
}
