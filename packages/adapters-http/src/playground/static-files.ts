import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import type { Context } from 'koa';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.wav': 'audio/wav',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Same-origin only: the pages load nothing from elsewhere (the machines that run this have no
 * internet), so the browser is told to refuse anything that tries. `ws:`/`wss:` for the realtime
 * socket on this host; `blob:` for recorded clips, MSE video and audio players.
 */
export const PAGE_SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
    "media-src 'self' blob: data:; connect-src 'self' ws: wss:; worker-src 'self' blob:; font-src 'self' data:; " +
    "object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/**
 * Resolves a request path inside one of `roots` (first match wins) to a regular file, or null.
 * Refuses what could leave a root: `..` segments, backslashes, NUL, absolute paths.
 */
export async function findStaticFile(
  roots: readonly string[],
  relativePath: string,
): Promise<{ path: string; size: number; mtime: Date } | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(relativePath);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const segments = decoded.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.length === 0 || segments.some((s) => s === '..' || s.startsWith('.'))) return null;
  if (!CONTENT_TYPES[extname(decoded).toLowerCase()]) return null;
  for (const root of roots) {
    const base = resolve(root);
    const path = resolve(base, ...segments);
    if (!path.startsWith(base + sep)) continue;
    try {
      const s = await stat(path);
      if (s.isFile()) return { path, size: s.size, mtime: s.mtime };
    } catch {
      // not in this root; try the next
    }
  }
  return null;
}

/**
 * Sends a file found by findStaticFile. `no-cache` (revalidate every time): the files change with
 * every build and are small; Last-Modified makes revalidation a 304.
 */
export function sendStaticFile(ctx: Context, file: { path: string; size: number; mtime: Date }): void {
  ctx.set(PAGE_SECURITY_HEADERS);
  ctx.set('Cache-Control', 'no-cache');
  ctx.lastModified = file.mtime;
  ctx.type = CONTENT_TYPES[extname(file.path).toLowerCase()]!;
  ctx.status = 200; // koa judges freshness only for a 2xx response
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.length = file.size;
  ctx.body = createReadStream(file.path); // koa sends no body for HEAD
}

export function contentTypeOf(path: string): string | undefined {
  return CONTENT_TYPES[extname(path).toLowerCase()];
}
