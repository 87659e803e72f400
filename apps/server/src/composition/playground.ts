import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { playgroundRoutes, renderRealtimeReference } from '@svc/adapters-http';
import { CLOSE_CODES } from '@svc/adapters-ws';
import { setting } from '../env-settings.js';
import { defineModule, type ModuleRoutes } from './module.js';

const require = createRequire(import.meta.url);

/**
 * The playground and the reference pages (/playground, / leading there, /docs, /docs/realtime).
 * Their files ship in @svc/playground-web (HTML/CSS in public/, scripts compiled by tsc into
 * dist/js/); the API reference viewer is swagger-ui-dist from npm. Public routes: the pages hold no
 * secret, and every API call they make carries the key the user pasted.
 */
export const playgroundModule = defineModule({
  name: 'playground',
  docs: 'docs/playground.md',
  settings: {
    SVC_PLAYGROUND: setting.bool(true),
  },
  bind() {
    // Nothing to bind: static pages, no ports.
  },
  routes({ config }): ModuleRoutes {
    if (!config.settings.SVC_PLAYGROUND) return {};
    const web = dirname(require.resolve('@svc/playground-web/package.json'));
    return {
      public: [
        playgroundRoutes({
          pageRoots: [join(web, 'public'), join(web, 'dist')],
          apiViewerRoot: dirname(require.resolve('swagger-ui-dist/package.json')),
          realtimeReferenceHtml: renderRealtimeReference(CLOSE_CODES),
          sampleFaces: sampleFaces(),
        }),
      ],
    };
  },
});

/**
 * Sample photos for the avatar panel: the demo pictures that ship in @vladmandic/face-api (MIT), the
 * face detector the avatar renderer uses. None when that package is not installed.
 */
function sampleFaces(): { dir: string; files: string[] } | null {
  try {
    const dir = join(dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo');
    return { dir, files: [1, 2, 3, 4, 5, 6].map((n) => `sample${n}.jpg`) };
  } catch {
    return null;
  }
}
