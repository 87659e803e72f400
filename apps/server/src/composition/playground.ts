import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { playgroundRoutes, renderRealtimeReference, type RouteModule } from '@svc/adapters-http';

const require = createRequire(import.meta.url);

/**
 * The playground and reference pages: their files ship in @svc/playground-web (HTML/CSS in
 * public/, scripts compiled by tsc into dist/js/), the API reference viewer is swagger-ui-dist
 * from npm. Public routes: the pages hold no secret and every API call they make carries the
 * key the user pasted.
 */
export function playgroundModule(): RouteModule {
  const web = dirname(require.resolve('@svc/playground-web/package.json'));
  return playgroundRoutes({
    pageRoots: [join(web, 'public'), join(web, 'dist')],
    apiViewerRoot: dirname(require.resolve('swagger-ui-dist/package.json')),
    realtimeReferenceHtml: renderRealtimeReference(),
  });
}
