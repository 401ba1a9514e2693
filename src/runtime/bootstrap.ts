import path from 'node:path';
import { loadConfig, type LoadedConfig } from '../config/load.js';
import { createLogger, createStderrLogger, type Logger } from '../log/logger.js';
import {
  DEFAULT_REDIS_URL,
  redisAnswers,
  redisServerOnPath,
  startEmbeddedRedis,
} from '../store/embedded-redis.js';
import { durabilityWarning, untilRedisAnswers } from '../store/redis.js';
import { createContext, type Context } from './context.js';

export interface BootOptions {
  configFile?: string;
  env: Record<string, string | undefined>;
  /** May start a private redis-server (only `steward start`). */
  allowEmbeddedRedis: boolean;
  /** stdout is reserved for protocol messages (`steward mcp`). */
  logToStderr?: boolean;
  overrides?: Record<string, unknown>;
}

/**
 * Config → logger → Redis URL (embedded default when allowed) → context. The context's Redis may
 * not answer yet: the role decides what to do meanwhile, then calls `waitForStore`.
 */
export async function boot(options: BootOptions): Promise<Context> {
  const config: LoadedConfig = loadConfig({
    ...(options.configFile ? { file: options.configFile } : {}),
    env: options.env,
    ...(options.overrides ? { overrides: options.overrides } : {}),
  });
  const log: Logger = options.logToStderr
    ? createStderrLogger(config.log.level, config.log.format)
    : createLogger(config.log.level, { format: config.log.format });
  const { url, stop } = await resolveRedis(config, log, options.allowEmbeddedRedis);
  const ctx = await createContext(config, log, url, options.env);
  if (stop) ctx.onClose(stop);
  return ctx;
}

/**
 * Waits, with backoff and without a deadline, until the store answers: Redis started after
 * Steward, or restarting, is waited for instead of ending the process. False when a shutdown
 * began meanwhile (the role then builds nothing).
 */
export async function waitForStore(ctx: Context): Promise<boolean> {
  try {
    await untilRedisAnswers(ctx.redis, (attempt, err) => {
      // Attempts back off to one each 5 s: the first, then every tenth, is enough to see why.
      if (attempt === 1 || attempt % 10 === 0) {
        ctx.log.warn(
          { attempt, err: err instanceof Error ? err.message : String(err) },
          'Redis does not answer yet; waiting for it',
        );
      }
    });
  } catch (err) {
    if (ctx.lifecycle.phase === 'stopping') return false;
    throw err;
  }
  if (ctx.lifecycle.phase === 'stopping') return false;
  const warning = await durabilityWarning(ctx.redis);
  if (warning) ctx.log.warn(warning);
  return true;
}

async function resolveRedis(
  config: LoadedConfig,
  log: Logger,
  allowEmbedded: boolean,
): Promise<{ url: string; stop?: () => Promise<void> }> {
  if (config.redis.url) return { url: config.redis.url };
  // With sentinels the URL carries at most a password and database; they find the primary.
  if (config.redis.sentinels.length > 0) return { url: DEFAULT_REDIS_URL };
  if (await redisAnswers(DEFAULT_REDIS_URL)) return { url: DEFAULT_REDIS_URL };
  if (allowEmbedded && config.redis.embedded === 'auto' && redisServerOnPath()) {
    const embedded = await startEmbeddedRedis(path.join(config.paths.data, 'redis'), log);
    return { url: embedded.url, stop: embedded.stop };
  }
  throw new Error(
    `no Redis answers at ${DEFAULT_REDIS_URL}; set REDIS_URL (or redis.url), or install redis-server so that \`steward start\` can run a private one`,
  );
}
