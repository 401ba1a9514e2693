import type { Redis } from './redis.js';
import { keys } from './keys.js';
import { callLua } from './lua-commands.js';

export interface ExecutionStats {
  total: number;
  success: number;
  failed: number;
  avg_duration_ms: number;
}

/**
 * Execution counters shared by every process. They live in Redis (not per process) because the
 * runs happen in worker processes while `/metrics` is answered by API replicas.
 */
export function createStatsRepository(redis: Redis) {
  return {
    async record(success: boolean, durationMs: number): Promise<void> {
      await callLua(
        redis,
        'executionStatsRecord',
        keys.executionStats(),
        success ? 'success' : 'failed',
        Math.max(0, Math.round(durationMs)),
      );
    },
    /** A run dropped unrun: its caller had stopped waiting before a worker could start it. */
    async recordExpired(): Promise<void> {
      await redis.hincrby(keys.executionStats(), 'expired', 1);
    },
    async expired(): Promise<number> {
      return Number((await redis.hget(keys.executionStats(), 'expired')) ?? 0);
    },
    async read(): Promise<ExecutionStats> {
      const raw = await redis.hgetall(keys.executionStats());
      const total = Number(raw.total ?? 0);
      const sum = Number(raw.duration_sum ?? 0);
      return {
        total,
        success: Number(raw.success ?? 0),
        failed: Number(raw.failed ?? 0),
        avg_duration_ms: total > 0 ? Math.round((sum / total) * 100) / 100 : 0,
      };
    },
  };
}

export type StatsRepository = ReturnType<typeof createStatsRepository>;
