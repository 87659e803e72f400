import type { RouterMiddleware } from '@koa/router';
import type { AppRouter, AppState } from '../app-state.js';
import type { OpenApiRegistry, OperationDoc } from '../openapi/openapi-registry.js';

/**
 * One API operation, declared once: its method and path, the middleware that answers it, and its
 * OpenAPI description (the very zod schemas the handlers validate with). Like a fastify route with its
 * schema, the one declaration gives both the route and the documented operation, so the two lists
 * cannot drift apart.
 */
export interface ApiRoute extends Omit<OperationDoc, 'public'> {
  /** Run in order (e.g. a rate limit, then the handler). */
  handlers: RouterMiddleware<AppState>[];
  /**
   * On a public table: the handler checks the Bearer itself (an API key or an ephemeral key, which
   * the API-key middleware would refuse), so the operation is documented as authenticated.
   */
  authenticatesItself?: boolean;
}

/** `/v1/videos/{id}/content` (OpenAPI) -> `/v1/videos/:id/content` (the router's syntax). */
export function routerPath(openApiPath: string): string {
  return openApiPath.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');
}

/**
 * Where route modules put their routes: the router answers them, the registry documents them. A
 * table is public (no key: health probes, metrics when configured so, the pages) or authenticated,
 * and the document says which of the two each operation is from the table it was added to.
 */
export class RouteTable {
  constructor(
    private readonly router: AppRouter,
    private readonly openapi: OpenApiRegistry,
    private readonly access: 'public' | 'authenticated',
  ) {}

  /** An API operation: routed at its path and listed in the OpenAPI document. */
  add(route: ApiRoute): void {
    const { handlers, authenticatesItself, ...operation } = route;
    if (handlers.length === 0) throw new Error(`${route.method.toUpperCase()} ${route.path} has no handler`);
    this.router[route.method](routerPath(route.path), ...handlers);
    this.openapi.add({ ...operation, ...(this.access === 'public' && !authenticatesItself ? { public: true } : {}) });
  }

  /** The OpenAPI document of every operation added so far, through this table or another on the same registry. */
  document(info: { title: string; version: string; description?: string }): Record<string, unknown> {
    return this.openapi.document(info);
  }

  /**
   * A GET that is not part of the API (the playground's pages and files, `/` leading to them): routed
   * but not documented. The path is in the router's syntax (wildcards such as `{*path}`).
   */
  page(path: string, handler: RouterMiddleware<AppState>): void {
    this.router.get(path, handler);
  }
}
