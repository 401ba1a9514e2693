import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';

/**
 * The one loader of Steward's Lua: every `lua/<name>-<keys>.lua` is a command `<name>` in
 * camelCase. A call is EVALSHA; after a SCRIPT FLUSH or a Redis restart (NOSCRIPT) it is sent
 * once as EVAL, which loads it again, so the text is never resent per call. A file without
 * `-<keys>` takes the key count as its first argument. The files are read once per process;
 * `npm run build` copies them beside the JS.
 *
 * Not ioredis's `defineCommand`: ioredis copies every defined command onto each pipeline it
 * makes, and an auto-pipelining connection makes one per batch, so 22 commands cost each
 * batch about four times the pipeline itself (`bench:scripts` profile).
 */
export interface LuaDefinition {
  command: string;
  numberOfKeys?: number;
  lua: string;
  /** SHA-1 of `lua`, as EVALSHA names it. */
  sha: string;
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
    const lua = readFileSync(new URL(file, luaDir), 'utf8');
    definitions.push({
      command: match[1].replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase()),
      ...(match[2] !== undefined ? { numberOfKeys: Number(match[2]) } : {}),
      lua,
      sha: createHash('sha1').update(lua).digest('hex'),
    });
  }
  return (cached = definitions);
}

let byCommand: Map<string, LuaDefinition> | undefined;

type LuaArg = string | number | Buffer;

/**
 * Runs a command by name on a connection (its KEYS take the connection's key prefix, as any
 * command's keys do); the reply is the script's, unparsed.
 */
export async function callLua(redis: Redis, command: string, ...args: LuaArg[]): Promise<unknown> {
  byCommand ??= new Map(luaDefinitions().map((d) => [d.command, d]));
  const definition = byCommand.get(command);
  if (!definition) throw new Error(`no Lua command ${command} in src/store/lua`);
  const { numberOfKeys, sha, lua } = definition;
  const [keyCount, ...rest] = numberOfKeys === undefined ? args : [numberOfKeys, ...args];
  if (keyCount === undefined || typeof keyCount === 'object') {
    throw new Error(`Lua command ${command} needs its key count first`);
  }
  try {
    return await redis.evalsha(sha, keyCount, ...rest);
  } catch (err) {
    // The reply's error code, not a message of ours: this Redis does not hold the script.
    if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
    return redis.eval(lua, keyCount, ...rest);
  }
}
