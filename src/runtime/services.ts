import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { unauthorized } from '../errors/catalogue.js';
import { keys } from '../store/keys.js';
import { createStatsStore, type StatsStore } from '../store/stats-store.js';
import type { Context } from './context.js';
import type { MetricsSources } from './metrics.js';
import { threadCount } from './threads.js';

/**
 * The wiring hub: builds every store and service once per process from the context and lists
 * the `/api` route plugins. The API, the workers and the MCP server all start from here.
 */
export type RouteRegistration = (api: FastifyInstance) => Promise<void>;

export interface Services {
  stats: StatsStore;
  setupComplete(): Promise<boolean>;
  metrics: MetricsSources;
  /** Route registrations under `/api` that need no access token (setup, login, session). */
  publicRoutes: RouteRegistration[];
  /** Route registrations under `/api` behind `guards`. */
  protectedRoutes: RouteRegistration[];
  /** onRequest hooks of the protected scope: authentication, then the rate limit. */
  guards: onRequestHookHandler[];
}

export async function createServices(ctx: Context): Promise<Services> {
  const { redis } = ctx;
  const stats = createStatsStore(redis);

  const scriptCounts = async () => {
    const names = await redis.smembers(keys.scriptIndex());
    const counts = { total: names.length, approved: 0, pending: 0, rejected: 0 };
    if (names.length === 0) return counts;
    const pipeline = redis.pipeline();
    for (const name of names) pipeline.hget(keys.script(name), 'status');
    for (const [, status] of (await pipeline.exec()) ?? []) {
      if (status === 'approved' || status === 'pending' || status === 'rejected') counts[status]++;
    }
    return counts;
  };

  return {
    stats,
    setupComplete: async () => (await redis.exists(keys.adminUser())) === 1,
    metrics: {
      scripts: scriptCounts,
      executions: () => stats.read(),
      secrets: async () => ({ total: 0, configured: 0 }),
      threads: threadCount,
    },
    publicRoutes: [],
    protectedRoutes: [],
    guards: [
      async () => {
        throw unauthorized();
      },
    ],
  };
}
