import { z } from 'zod';
import { ModelNotFoundError } from '@svc/core';
import type { RouteModule } from '../app-state.js';
import type { RouteTable } from '../routing/route-table.js';

/** A model as OpenAI's `GET /v1/models` lists it. */
export interface ModelEntry {
  id: string;
  /** Unix seconds. */
  created: number;
  owned_by: string;
}

export interface ModelsRoutesDeps {
  /** What this server offers, in the order listed. */
  models: () => readonly ModelEntry[];
  /** A name accepted although not listed (a dated snapshot of an OpenAI alias): the entry to show, else null. */
  resolveUnlisted?: (id: string) => ModelEntry | null;
}

const modelSchema = z.object({ id: z.string(), object: z.literal('model'), created: z.number().int(), owned_by: z.string() });
const present = (m: ModelEntry) => ({ id: m.id, object: 'model' as const, created: m.created, owned_by: m.owned_by });

/**
 * GET /v1/models and GET /v1/models/{model} in OpenAI's shape (an extension beyond the service
 * interface), so `client.models.list()` and tools that fill a model picker from it work.
 */
export function modelsRoutes(deps: ModelsRoutesDeps): RouteModule {
  return {
    register(routes: RouteTable) {
      routes.add({
        method: 'get',
        path: '/v1/models',
        summary: 'List models (extension)',
        description:
          "The speech, transcription, realtime and avatar model ids, the recognizer and neural voice models installed, and OpenAI's names when SVC_OPENAI_MODEL_ALIASES is on.",
        tags: ['models'],
        responses: {
          '200': {
            description: 'Models',
            content: { 'application/json': z.object({ object: z.literal('list'), data: z.array(modelSchema) }) },
          },
        },
        handlers: [
          (ctx) => {
            ctx.body = { object: 'list', data: deps.models().map(present) };
          },
        ],
      });
      routes.add({
        method: 'get',
        path: '/v1/models/{model}',
        summary: 'Retrieve a model (extension)',
        tags: ['models'],
        parameters: [{ name: 'model', in: 'path', required: true, description: 'Model id', schema: z.string() }],
        responses: {
          '200': { description: 'The model', content: { 'application/json': modelSchema } },
          '404': { description: 'model_not_found' },
        },
        handlers: [
          (ctx) => {
            const id = ctx.params.model!;
            const entry = deps.models().find((m) => m.id === id) ?? deps.resolveUnlisted?.(id) ?? null;
            if (!entry) throw new ModelNotFoundError(id);
            ctx.body = present(entry);
          },
        ],
      });
    },
  };
}
