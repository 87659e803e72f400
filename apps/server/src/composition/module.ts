import type { Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { z } from 'zod';
import type { RouteModule } from '@svc/adapters-http';
import type { ServerConfig } from '../config.js';

/** Resolves a bound token (inside a factory: another port; after start: anything bound). */
export type Resolve = <T>(token: symbol) => Promise<T>;

/** Stops what a factory started (engines, worker pools, database connections). */
export type Closer = () => Promise<void> | void;

/**
 * The one way to bind: `provide(token, make)` binds `token` to what `make` returns, created once,
 * when first needed (every binding is resolved at start-up, so a failing engine stops the start).
 * `make` resolves its own dependencies with `get`, so an override of any port (see
 * `buildContainer(config, overrides)`) reaches everything that uses it. `close` runs at shutdown
 * (in reverse order of creation) when the default was created, never for an override.
 */
export type Provide = <T>(
  token: symbol,
  make: (get: Resolve) => T | Promise<T>,
  options?: { close?: (value: T) => Promise<void> | void },
) => void;

/** What a module's routes and attachments receive: the finished container. */
export interface ModuleContext {
  config: ServerConfig;
  /** Synchronous lookup of a resolved binding. */
  get<T>(token: symbol): T;
}

export interface ModuleRoutes {
  /** Routes reachable without a key (health probes, public metrics). */
  public?: RouteModule[];
  /** Routes that require `Authorization: Bearer <key>`. */
  authenticated?: RouteModule[];
}

/**
 * A capability (or the shared foundation) as the composition root sees it, all in one file:
 * - `settings`: its SVC_* variables (zod types from env-settings.ts); config.ts merges every
 *   module's settings into one schema and parses them once, up front;
 * - `check`: validation across settings, also before anything opens;
 * - `bind`: its ports and use cases, each under a token, with `provide`;
 * - `routes`: its REST routes; `attach`: what needs the HTTP server itself (the WebSocket gateway).
 */
export interface ServerModule<S extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  /** The document (repository path) whose settings table lists every one of `settings`. */
  docs: string;
  settings: S;
  check?(settings: z.output<z.ZodObject<S>>): void;
  bind(provide: Provide, config: ServerConfig): void;
  routes?(ctx: ModuleContext): ModuleRoutes;
  /**
   * Returns what it attached (or null: nothing, e.g. a port left unset); its `close` runs first at
   * shutdown. A module may open a listener of its own here (the Wyoming port): the start waits for it.
   */
  attach?(server: HttpServer | HttpsServer, ctx: ModuleContext): Attachment | null | Promise<Attachment | null>;
}

/** Something attached to the HTTP server (e.g. `{ gateway, close }` of the realtime module). */
export interface Attachment {
  close: Closer;
}

/** Declares a module (keeps the settings' types for `check`). */
export function defineModule<S extends z.ZodRawShape>(module: ServerModule<S>): ServerModule<S> {
  return module;
}
