import { z } from 'zod';

type Method = 'get' | 'post' | 'delete';

export interface ResponseDoc {
  description: string;
  /** Content type -> schema (zod) or null for opaque bytes. */
  content?: Record<string, z.ZodType | null>;
  headers?: Record<string, string>;
}

export interface OperationDoc {
  method: Method;
  /** OpenAPI path template, e.g. /v1/audio/voices/{voice}. */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Content type -> the zod schema that validates the request body. */
  requestBody?: Record<string, z.ZodType>;
  parameters?: Array<{ name: string; in: 'path' | 'query'; required?: boolean; description: string; schema: z.ZodType }>;
  responses: Record<string, ResponseDoc>;
  /** Reached without a key (set by the RouteTable the operation was added to). */
  public?: boolean;
}

/** The `limit` and `after` query parameters of a paged list (voices, videos), described by its query schema. */
export function pageParameters(query: z.ZodObject<{ limit: z.ZodType; after: z.ZodType }>): NonNullable<OperationDoc['parameters']> {
  return [
    { name: 'limit', in: 'query', description: query.shape.limit.description ?? '', schema: z.number().int() },
    { name: 'after', in: 'query', description: query.shape.after.description ?? '', schema: z.string() },
  ];
}

const errorBody = z.object({
  error: z.object({
    message: z.string(),
    type: z.string().describe('Identifier of the error, e.g. input_too_long, voice_not_found'),
    code: z.string().describe('Same identifier as type'),
    param: z.string().nullable(),
  }),
});

const toSchema = (schema: z.ZodType): unknown => z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12' });

/**
 * Collects the operations route modules register, with the very zod schemas their handlers
 * validate with, and renders them as one OpenAPI 3.1 document.
 */
export class OpenApiRegistry {
  private readonly operations: OperationDoc[] = [];

  add(operation: OperationDoc): void {
    this.operations.push(operation);
  }

  document(info: { title: string; version: string; description?: string }): Record<string, unknown> {
    const paths: Record<string, Record<string, unknown>> = {};
    for (const op of this.operations) {
      paths[op.path] ??= {};
      paths[op.path]![op.method] = {
        summary: op.summary,
        ...(op.description ? { description: op.description } : {}),
        tags: op.tags,
        ...(op.public ? { security: [] } : {}),
        ...(op.parameters
          ? {
              parameters: op.parameters.map((p) => ({
                name: p.name,
                in: p.in,
                required: p.in === 'path' ? true : (p.required ?? false),
                description: p.description,
                schema: toSchema(p.schema),
              })),
            }
          : {}),
        ...(op.requestBody
          ? {
              requestBody: {
                required: true,
                content: Object.fromEntries(Object.entries(op.requestBody).map(([type, schema]) => [type, { schema: toSchema(schema) }])),
              },
            }
          : {}),
        responses: {
          ...Object.fromEntries(Object.entries(op.responses).map(([status, r]) => [status, renderResponse(r)])),
          ...(op.public ? {} : { '401': { description: 'Missing or invalid API key', content: errorContent() } }),
          default: { description: 'Error', content: errorContent() },
        },
      };
    }
    return {
      openapi: '3.1.0',
      info,
      jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
      security: [{ bearerAuth: [] }],
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key' } },
      },
      paths,
    };
  }
}

function renderResponse(r: ResponseDoc): Record<string, unknown> {
  return {
    description: r.description,
    ...(r.headers
      ? { headers: Object.fromEntries(Object.entries(r.headers).map(([h, d]) => [h, { description: d, schema: { type: 'string' } }])) }
      : {}),
    ...(r.content
      ? {
          content: Object.fromEntries(
            Object.entries(r.content).map(([type, schema]) => [
              type,
              { schema: schema ? toSchema(schema) : { type: 'string', contentMediaType: type } },
            ]),
          ),
        }
      : {}),
  };
}

function errorContent(): Record<string, unknown> {
  return { 'application/json': { schema: toSchema(errorBody) } };
}
