import { readdirSync, readFileSync } from 'node:fs';
import type { ChainableCommander, Redis } from 'ioredis';

/**
 * The one loader of Steward's Lua (as BullMQ's `loadCommands`): every `lua/<name>-<keys>.lua`
 * becomes an ioredis custom command `<name>` in camelCase, defined once per connection. A call
 * is EVALSHA; ioredis falls back to EVAL once after a SCRIPT FLUSH or a Redis restart, so the
 * text is never resent per call. A file without `-<keys>` takes the key count as its first
 * argument. The files are read once per process; `npm run build` copies them beside the JS.
 */
export interface LuaDefinition {
  command: string;
  numberOfKeys?: number;
  lua: string;
}

const luaDir = new URL('./lua/', import.meta.url);
let cached: LuaDefinition[] | undefined;

export function luaDefinitions(): LuaDefinition[] {
  if (cached) return cached;
  const definitions: LuaDefinition[] = [];
  for (const file of readdirSync(luaDir).sort()) {
    if (!file.endsWith('.lua')) continue;
    const match = /^([a-z][a-z0-9-]*?)(?:-(\d+))?\.lua$/.exec(file);
    if (!match?.[1]) throw new Error(`Lua file ${file} is not named <name>[-<keys>].lua`);
    definitions.push({
      command: match[1].replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase()),
      ...(match[2] !== undefined ? { numberOfKeys: Number(match[2]) } : {}),
      lua: readFileSync(new URL(file, luaDir), 'utf8'),
    });
  }
  return (cached = definitions);
}

const defined = new WeakSet<Redis>();

/** Defines every command on a connection (idempotent); `createRedis` does it for store ones. */
export function defineLuaCommands(redis: Redis): void {
  if (defined.has(redis)) return;
  defined.add(redis);
  for (const { command, numberOfKeys, lua } of luaDefinitions()) {
    redis.defineCommand(command, numberOfKeys === undefined ? { lua } : { numberOfKeys, lua });
  }
}

type LuaArg = string | number | Buffer;
type LuaHost = Record<string, ((...args: LuaArg[]) => unknown) | undefined>;

/** Runs a loaded command by name on a connection; the reply is the script's, unparsed. */
export function callLua(redis: Redis, command: string, ...args: LuaArg[]): Promise<unknown> {
  defineLuaCommands(redis);
  const fn = (redis as unknown as LuaHost)[command];
  if (!fn) throw new Error(`no Lua command ${command} in src/store/lua`);
  return fn.apply(redis, args) as Promise<unknown>;
}

/** Queues a loaded command on a pipeline or MULTI of a connection `defineLuaCommands` saw. */
export function queueLua(chain: ChainableCommander, command: string, ...args: LuaArg[]): void {
  const fn = (chain as unknown as LuaHost)[command];
  if (!fn) throw new Error(`no Lua command ${command} on this pipeline's connection`);
  fn.apply(chain, args);
}
