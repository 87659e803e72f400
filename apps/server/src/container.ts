import 'reflect-metadata';
import { Container } from 'inversify';
import type { Token } from '@svc/core';
import type { ServerConfig } from './config.js';
import type { Closer, ModuleContext, Provide, ServerModule } from './composition/module.js';
import { settlesBy } from './runtime/deadline.js';
import { SERVER_MODULES } from './composition/modules.js';

/** Replacement bindings by token, e.g. an in-memory repository, a fake clock or a fake engine in tests. */
export type Overrides = Map<symbol, unknown>;

export interface ServiceContainer {
  container: Container;
  /** Every token bound, with the module that binds it. */
  tokens: ReadonlyMap<symbol, string>;
  /** The tokens each default resolved while it was made (overrides resolve none). */
  dependencies: ReadonlyMap<symbol, ReadonlySet<symbol>>;
  get<T>(token: Token<T>): T;
  /**
   * Runs the modules' `start` hooks in order; each stop they return joins the closers, so `close`
   * runs them first (after everything was created), in reverse module order.
   */
  start(ctx: ModuleContext): Promise<void>;
  /**
   * Stops engines and closes the database (what the defaults started; overrides are the caller's),
   * in reverse order of creation. With a `deadline` (ms since the epoch), a closer still running
   * then is given up on (a dependency that does not answer must not hold a shutdown past its grace
   * period); the names of those given up on are returned.
   */
  close(deadline?: number, onClosed?: (name: string, ms: number) => void): Promise<string[]>;
}

/**
 * The composition root: each module binds its ports and use cases under tokens with `provide`
 * (one style, one binding per token). An override replaces a binding before anything is created,
 * so it reaches every use case that needs the port, and the default is never started. Every
 * binding is resolved here, so an engine that cannot start stops the start-up.
 */
export async function buildContainer(
  config: ServerConfig,
  overrides: Overrides = new Map(),
  modules: readonly ServerModule[] = SERVER_MODULES,
): Promise<ServiceContainer> {
  const container = new Container({ defaultScope: 'Singleton' });
  const closers: Array<{ name: string; close: Closer }> = [];
  const tokens = new Map<symbol, string>();
  const dependencies = new Map<symbol, Set<symbol>>();

  for (const module of modules) {
    const provide: Provide = (token, make, options) => {
      const owner = tokens.get(token);
      if (owner) throw new Error(`${token.description} is bound twice (by ${owner} and ${module.name}).`);
      tokens.set(token, module.name);
      const uses = new Set<symbol>();
      dependencies.set(token, uses);
      if (overrides.has(token)) {
        container.bind(token).toConstantValue(overrides.get(token));
        return;
      }
      container.bind(token).toDynamicValue(async (ctx) => {
        const value = await make((t) => {
          uses.add(t);
          return ctx.getAsync(t);
        });
        const close = options?.close;
        if (close) closers.push({ name: token.description ?? 'binding', close: () => close(value) });
        return value;
      });
    };
    module.bind(provide, config);
  }
  for (const token of overrides.keys()) {
    if (!tokens.has(token)) throw new Error(`Override for ${token.description}, which no module binds.`);
  }

  const close = async (deadline = Infinity, onClosed?: (name: string, ms: number) => void): Promise<string[]> => {
    const givenUp: string[] = [];
    for (const { name, close: closer } of closers.splice(0).reverse()) {
      const started = Date.now();
      // Past the deadline the rest are still started (a quick one may finish) but not waited for.
      const closing = Promise.resolve()
        .then(closer)
        .catch(() => undefined);
      if (deadline === Infinity) await closing;
      else if (Date.now() >= deadline || !(await settlesBy(closing, deadline))) givenUp.push(name);
      else onClosed?.(name, Date.now() - started);
    }
    return givenUp;
  };
  try {
    for (const token of tokens.keys()) await container.getAsync(token);
  } catch (err) {
    await close();
    throw err;
  }
  const start = async (ctx: ModuleContext): Promise<void> => {
    for (const module of modules) {
      const stop = await module.start?.(ctx);
      if (stop) closers.push({ name: `${module.name} (started tasks)`, close: stop });
    }
  };
  return { container, tokens, dependencies, get: <T>(token: Token<T>) => container.get<T>(token), start, close };
}
