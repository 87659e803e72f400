import { expect } from 'chai';
import { z } from 'zod';
import { OpenApiRegistry } from '../../src/openapi/openapi-registry.js';
import { routerPath, RouteTable } from '../../src/routing/route-table.js';
import type { RouteModule } from '../../src/app-state.js';
import { errorOf, startApp, type RunningApp } from '../support/http-app.js';

/** A route module as the capabilities write them: each route declared once. */
const things: RouteModule = {
  register(routes) {
    routes.add({
      method: 'get',
      path: '/v1/things/{thing}/parts/{part}',
      summary: 'A part of a thing',
      tags: ['things'],
      parameters: [
        { name: 'thing', in: 'path', description: 'thing id', schema: z.string() },
        { name: 'part', in: 'path', description: 'part id', schema: z.string() },
      ],
      responses: { '200': { description: 'The part', content: { 'application/json': z.object({ thing: z.string(), part: z.string() }) } } },
      handlers: [
        async (ctx, next) => {
          ctx.set('X-First', 'ran');
          await next();
        },
        (ctx) => {
          ctx.body = { thing: ctx.params.thing, part: ctx.params.part };
        },
      ],
    });
    routes.page('/things-page/{*path}', (ctx) => {
      ctx.body = `page ${String(ctx.params.path)}`;
    });
  },
};

const probe: RouteModule = {
  register(routes) {
    routes.add({
      method: 'get',
      path: '/probe',
      summary: 'Probe',
      tags: ['operations'],
      responses: { '200': { description: 'OK' } },
      handlers: [(ctx) => void (ctx.body = { ok: true })],
    });
  },
};

/** A public route whose handler checks the Bearer itself (as the WebRTC calls take ephemeral keys). */
const selfAuthenticated: RouteModule = {
  register(routes) {
    routes.add({
      method: 'post',
      path: '/v1/self-checked',
      summary: 'Checks its own Bearer',
      tags: ['operations'],
      authenticatesItself: true,
      responses: { '200': { description: 'OK' } },
      handlers: [(ctx) => void (ctx.body = { authorization: ctx.get('authorization') })],
    });
  },
};

const documentOf: RouteModule = {
  register(routes) {
    routes.add({
      method: 'get',
      path: '/v1/doc.json',
      summary: 'The document',
      tags: ['operations'],
      responses: { '200': { description: 'OpenAPI' } },
      handlers: [(ctx) => void (ctx.body = routes.document({ title: 't', version: '1' }))],
    });
  },
};

describe('RouteTable: one declaration gives the route and its OpenAPI operation', () => {
  let t: RunningApp;
  before(async () => {
    t = await startApp({ api: [things, documentOf], public: [probe, selfAuthenticated] });
  });
  after(() => t.close());

  it('translates OpenAPI path templates into the router syntax', () => {
    expect(routerPath('/v1/videos/{id}/content')).to.equal('/v1/videos/:id/content');
    expect(routerPath('/v1/audio/voices/{voice}')).to.equal('/v1/audio/voices/:voice');
    expect(routerPath('/healthz')).to.equal('/healthz');
  });

  it('routes the declared path with its parameters, running the handlers in order', async () => {
    const res = await t.call('/v1/things/t1/parts/p%202');
    expect(res.status).to.equal(200);
    expect(res.headers.get('x-first')).to.equal('ran');
    expect(await res.json()).to.deep.equal({ thing: 't1', part: 'p 2' });
  });

  it('documents exactly the added operations, at their OpenAPI paths; pages are routed but not documented', async () => {
    const doc = (await (await t.call('/v1/doc.json')).json()) as {
      paths: Record<string, Record<string, { security?: unknown[]; parameters?: unknown[]; responses: Record<string, unknown> }>>;
    };
    expect(Object.keys(doc.paths).sort()).to.deep.equal(['/probe', '/v1/doc.json', '/v1/self-checked', '/v1/things/{thing}/parts/{part}']);
    const part = doc.paths['/v1/things/{thing}/parts/{part}']!.get!;
    expect(part.parameters).to.have.length(2);
    expect(part.responses).to.have.property('401'); // authenticated table
    expect(part.security).to.equal(undefined);
    expect((await t.call('/things-page/a/b')).status).to.equal(200);
  });

  it('marks an operation public from the table it was added to (no key, no 401 in its document)', async () => {
    const doc = (await (await t.call('/v1/doc.json')).json()) as {
      paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>;
    };
    expect(doc.paths['/probe']!.get!.security).to.deep.equal([]);
    expect(doc.paths['/probe']!.get!.responses).not.to.have.property('401');
    expect((await fetch(`${t.url}/probe`)).status).to.equal(200);
    const refused = await fetch(`${t.url}/v1/things/a/parts/b`);
    expect(refused.status).to.equal(401);
    expect((await errorOf(refused)).type).to.equal('invalid_api_key');
  });

  it('a public route that authenticates itself is reached without the API-key middleware but documented with the Bearer and its 401', async () => {
    const doc = (await (await t.call('/v1/doc.json')).json()) as {
      paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>;
    };
    const op = doc.paths['/v1/self-checked']!.post!;
    expect(op.security).to.equal(undefined);
    expect(op.responses).to.have.property('401');
    // Not an API key: the key middleware would have answered 401; the handler sees the header.
    const res = await fetch(`${t.url}/v1/self-checked`, { method: 'POST', headers: { Authorization: 'Bearer svc-eph-x' } });
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ authorization: 'Bearer svc-eph-x' });
  });

  it('refuses a route without a handler at registration', () => {
    const table = new RouteTable(
      new (class {
        get() {}
      })() as never,
      new OpenApiRegistry(),
      'authenticated',
    );
    expect(() => table.add({ method: 'get', path: '/x', summary: 'x', tags: [], responses: {}, handlers: [] })).to.throw(/no handler/);
  });
});
