import { apiJson, apiKey, describeError } from './api.js';
import { byId, setStatus } from './dom.js';

interface SwaggerRequest {
  headers: Record<string, string>;
}
type SwaggerUIBundle = (options: Record<string, unknown>) => unknown;
declare global {
  interface Window {
    SwaggerUIBundle?: SwaggerUIBundle;
  }
}

/**
 * /docs: the OpenAPI document of this server rendered by Swagger UI (served from the npm package,
 * no CDN). The document, like the rest of /v1, needs a key; "Try it out" requests carry it too.
 */
async function show(): Promise<void> {
  const status = byId('docs-status');
  const form = byId<HTMLFormElement>('signin');
  if (!apiKey.get()) {
    form.hidden = false;
    return;
  }
  try {
    const spec = await apiJson<Record<string, unknown>>('/v1/openapi.json');
    // Swagger UI warns about any dialect but its own default; the schemas are plain 2020-12 JSON Schema, which that default includes.
    delete spec.jsonSchemaDialect;
    const ui = window.SwaggerUIBundle;
    if (!ui) throw new Error('The reference viewer did not load.');
    status.hidden = true;
    form.hidden = true;
    ui({
      spec,
      dom_id: '#swagger',
      validatorUrl: null, // the public validator is another origin; nothing leaves this server
      deepLinking: true,
      defaultModelsExpandDepth: 0,
      requestInterceptor: (req: SwaggerRequest) => {
        const key = apiKey.get();
        if (key) req.headers.Authorization = `Bearer ${key}`;
        return req;
      },
    });
  } catch (err) {
    apiKey.clear();
    form.hidden = false;
    setStatus(status, `That key was refused: ${describeError(err)}`, 'error');
  }
}

byId<HTMLFormElement>('signin').addEventListener('submit', (e) => {
  e.preventDefault();
  const input = byId<HTMLInputElement>('api-key');
  if (!input.value.trim()) return;
  apiKey.set(input.value.trim());
  input.value = '';
  void show();
});
void show();
