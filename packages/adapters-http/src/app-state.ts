import type { Logger, Principal } from '@svc/core';
import type Router from '@koa/router';
import type { OpenApiRegistry } from './openapi/openapi-registry.js';

/** What middleware leaves on ctx.state for the handlers after it. */
export interface AppState {
  requestId: string;
  log: Logger;
  /** Set by the auth middleware on every authenticated route. */
  principal: Principal;
  /** Route template (e.g. /v1/audio/voices/:voice), for metrics labels. */
  route?: string;
}

export type AppRouter = Router<AppState>;

/** A capability's REST routes: registers handlers and documents them in the OpenAPI registry. */
export interface RouteModule {
  register(router: AppRouter, openapi: OpenApiRegistry): void;
}
