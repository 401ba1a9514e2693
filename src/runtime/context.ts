import type { LoadedConfig } from '../config/load.js';
import type { Logger } from '../log/logger.js';
import { createQueueClient, type QueueClient } from '../queue/client.js';
import { createRedis, redisTargetOf, type Redis, type RedisTarget } from '../store/redis.js';
import { createLifecycle, type Lifecycle } from './lifecycle.js';

/**
 * What every role (API, worker, MCP) shares: the typed config, a logger, one store connection,
 * the queue client and the lifecycle. Stores and services are plain factories over these, so
 * they work the same inside and outside Fastify.
 */
export interface Context {
  config: LoadedConfig;
  log: Logger;
  redisTarget: RedisTarget;
  redis: Redis;
  queues: QueueClient;
  lifecycle: Lifecycle;
  /** The process environment handed to the CLI (child processes such as the engine inherit
   * an allow-listed part of it); nothing reads `process.env` directly. */
  env: Readonly<Record<string, string | undefined>>;
  /** Closers run in reverse order of registration at shutdown. */
  onClose(fn: () => Promise<void> | void): void;
  close(): Promise<void>;
}

export async function createContext(
  config: LoadedConfig,
  log: Logger,
  redisUrl: string,
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<Context> {
  const redisTarget: RedisTarget = redisTargetOf(redisUrl, config.redis);
  const redis = createRedis(redisTarget, 'store');
  redis.on('error', (err) => log.warn({ err: err.message }, 'redis connection error'));
  // No wait here: a role listens for probes while Redis is still away (`waitForStore`).
  const queues = createQueueClient(redisTarget, (err) =>
    log.warn({ err: err.message }, 'queue connection error'),
  );
  const closers: Array<() => Promise<void> | void> = [];
  let closed = false;
  return {
    config,
    log,
    redisTarget,
    redis,
    queues,
    lifecycle: createLifecycle(),
    env,
    onClose(fn) {
      closers.push(fn);
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const fn of closers.reverse()) {
        try {
          await fn();
        } catch (err) {
          log.warn({ err }, 'error while closing');
        }
      }
      await queues.close();
      redis.disconnect();
    },
  };
}
