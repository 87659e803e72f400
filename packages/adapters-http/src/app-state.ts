import type { Logger, Principal } from '@svc/core';
import type Router from '@koa/router';
import type { RouteTable } from './routing/route-table.js';

/** What middleware leaves on ctx.state for the handlers after it. */
export interface AppState {
  requestId: string;
  log: Logger;
  /** Set by the auth middleware on every authenticated route. */
  principal: Principal;
}

/** The route template that matched (e.g. /v1/audio/voices/:voice), for logs and metric labels. */
export function matchedRoute(ctx: { _matchedRoute?: unknown; status: number }): string {
  const route = ctx._matchedRoute;
  return typeof route === 'string' && route.startsWith('/') ? route : 'unmatched';
}

export type AppRouter = Router<AppState>;

/** A capability's REST routes: each one declared once in the table, which routes and documents it. */
export interface RouteModule {
  register(routes: RouteTable): void;
}
