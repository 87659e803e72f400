import type { ChainableCommander, Redis } from 'ioredis';

/** One Lua script, run on the Redis server by its SHA1. */
export interface RedisScript {
  /** Runs it: `keys` then `args`, as KEYS and ARGV. */
  run(keys: readonly string[], args: readonly string[]): Promise<unknown>;
  /** Queues it on a pipeline (the results come from `pipeline.exec()`). */
  queue(pipeline: ChainableCommander, keys: readonly string[], args: readonly string[]): void;
}

type ScriptCommand = (...keysAndArgs: string[]) => Promise<unknown>;

/**
 * A Lua script defined on the client with ioredis' `defineCommand`: each call sends EVALSHA (40 bytes)
 * instead of the whole body, and ioredis sends the body once, on NOSCRIPT (a new or flushed server).
 * `name` must be unique per script: every adapter sharing one client defines its own.
 */
export function redisScript(redis: Redis, name: string, numberOfKeys: number, lua: string): RedisScript {
  const clients = redis as unknown as Record<string, ScriptCommand | undefined>;
  if (typeof clients[name] !== 'function') redis.defineCommand(name, { numberOfKeys, lua });
  const check = (keys: readonly string[]) => {
    if (keys.length !== numberOfKeys) throw new Error(`${name} takes ${numberOfKeys} keys, got ${keys.length}`);
  };
  return {
    run(keys, args) {
      check(keys);
      return clients[name]!.call(redis, ...keys, ...args);
    },
    queue(pipeline, keys, args) {
      check(keys);
      // A queued command's result arrives with the pipeline's exec(), not from this call.
      void (pipeline as unknown as Record<string, ScriptCommand>)[name]!.call(pipeline, ...keys, ...args);
    },
  };
}

/**
 * Lua lines that set `now` to the Redis server's time in milliseconds: one clock for every process
 * sharing the server, whatever their own clocks say. (Redis 5+ replicates a script's effects, so
 * reading TIME before writing is allowed.)
 */
export const LUA_SERVER_NOW_MS = `local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)`;
