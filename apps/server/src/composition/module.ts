import type { Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { z } from 'zod';
import type { RouteModule } from '@svc/adapters-http';
import type { Token } from '@svc/core';
import type { ServerConfig } from '../config.js';

/** Resolves a bound token (inside a factory: another port); the token's type is the result's. */
export type Resolve = <T>(token: Token<T>) => Promise<T>;

/** Stops what a factory or a start hook started (engines, worker pools, connections, consumers, timers). */
export type Closer = () => Promise<void> | void;

/**
 * The one way to bind: `provide(token, make)` binds `token` to what `make` returns, created once,
 * when first needed (every binding is resolved at start-up, so a failing engine stops the start).
 * `make` resolves its own dependencies with `get`, so an override of any port (see
 * `buildContainer(config, overrides)`) reaches everything that uses it. `close` runs at shutdown
 * (in reverse order of creation) when the default was created, never for an override.
 */
export type Provide = <T>(
  token: Token<T>,
  make: (get: Resolve) => T | Promise<T>,
  options?: { close?: (value: T) => Promise<void> | void },
) => void;

/** What a module's routes and attachments receive: the finished container. */
export interface ModuleContext {
  config: ServerConfig;
  /** Synchronous lookup of a resolved binding, typed by its token. */
  get<T>(token: Token<T>): T;
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
 * - `bind`: its ports and use cases, each under a token, with `provide` (construction only: nothing
 *   consumes a queue, scans or sets a timer while it is bound);
 * - `start`: what then runs on its own (queue consumers, resume scans, recurring sweeps);
 * - `routes`: its REST routes; `attach`: what needs the HTTP server itself (the WebSocket gateway).
 */
export interface ServerModule<S extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  /** The document (repository path) whose settings table lists every one of `settings`. */
  docs: string;
  settings: S;
  check?(settings: z.output<z.ZodObject<S>>): void;
  bind(provide: Provide, config: ServerConfig): void;
  /**
   * Runs after every binding resolved, in module order (server.ts, before the port opens); returns
   * its stop, which runs at shutdown before any binding closes, in reverse module order, within
   * SVC_SHUTDOWN_GRACE_MS like the closers. Not run by the CLI, which only binds.
   */
  start?(ctx: ModuleContext): Closer | void | Promise<Closer | void>;
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
