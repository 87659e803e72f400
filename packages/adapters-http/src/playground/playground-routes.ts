import type { Context } from 'koa';
import { MAX_INPUT_CHARS } from '@svc/core';
import type { RouteModule } from '../app-state.js';
import type { RouteTable } from '../routing/route-table.js';
import { findStaticFile, PAGE_SECURITY_HEADERS, sendStaticFile } from './static-files.js';

export interface PlaygroundRoutesOptions {
  /**
   * Folders holding the page's files, searched in order: the hand-written files (HTML, CSS,
   * images) and the scripts tsc compiled. Given by the composition root, which knows where the
   * page's package is installed.
   */
  pageRoots: string[];
  /** Folder of the API reference viewer's files (swagger-ui-dist), or null to serve no viewer. */
  apiViewerRoot: string | null;
  /** The realtime protocol reference, rendered once from the engine's own event definitions. */
  realtimeReferenceHtml: string;
  /** Photos the avatar panel offers as samples (only these files of `dir` are served), or null. */
  sampleFaces?: { dir: string; files: readonly string[] } | null;
}

/** Served at /playground/limits.json: `speech.max_input_chars` is POST /v1/audio/speech's `input` limit. */
export const PLAYGROUND_LIMITS = { speech: { max_input_chars: MAX_INPUT_CHARS } } as const;

/** The viewer files /docs needs; the rest of the viewer's package (demo pages, other builds) is not served. */
const VIEWER_FILES = new Set(['swagger-ui-bundle.js', 'swagger-ui.css']);

/**
 * The playground (`/playground`, `/` leads there) and the API reference (`/docs`,
 * `/docs/realtime`). Public: the pages hold no secret; every API call they make carries the key
 * the user pasted, and the API itself stays authenticated.
 */
export function playgroundRoutes(options: PlaygroundRoutesOptions): RouteModule {
  // Not found: the body stays empty and the app's 404 answers in the REST error shape.
  const serve = async (ctx: Context, roots: readonly string[], path: string) => {
    const file = await findStaticFile(roots, path);
    if (file) sendStaticFile(ctx, file);
  };
  return {
    register(routes: RouteTable) {
      routes.page('/', (ctx) => {
        ctx.redirect('/playground');
      });
      routes.page('/playground', (ctx) => serve(ctx, options.pageRoots, 'index.html'));
      routes.page('/playground/', (ctx) => serve(ctx, options.pageRoots, 'index.html'));
      // Before the page's wildcard: the sample photos and their list.
      const samples = options.sampleFaces ?? null;
      routes.page('/playground/samples.json', (ctx) => {
        ctx.set('Cache-Control', 'no-cache');
        ctx.body = { faces: (samples?.files ?? []).map((f) => `/playground/samples/${f}`) };
      });
      // The limits the page shows and enforces, from the rules the API applies (never copied into the page).
      routes.page('/playground/limits.json', (ctx) => {
        ctx.set('Cache-Control', 'no-cache');
        ctx.body = PLAYGROUND_LIMITS;
      });
      routes.page('/playground/samples/{*path}', async (ctx) => {
        const name = pathParam(ctx.params.path);
        if (samples && samples.files.includes(name)) await serve(ctx, [samples.dir], name);
      });
      routes.page('/playground/{*path}', (ctx) => serve(ctx, options.pageRoots, pathParam(ctx.params.path)));
      routes.page('/docs', (ctx) => serve(ctx, options.pageRoots, 'docs.html'));
      routes.page('/docs/viewer/{*path}', async (ctx) => {
        const name = pathParam(ctx.params.path);
        if (!options.apiViewerRoot || !VIEWER_FILES.has(name)) return;
        await serve(ctx, [options.apiViewerRoot], name);
      });
      routes.page('/docs/realtime', (ctx) => {
        ctx.set(PAGE_SECURITY_HEADERS);
        ctx.set('Cache-Control', 'no-cache');
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = options.realtimeReferenceHtml;
      });
    },
  };
}

/** koa-router gives a wildcard parameter as the joined path or its segments, depending on version. */
function pathParam(value: unknown): string {
  return Array.isArray(value) ? value.join('/') : String(value ?? '');
}
