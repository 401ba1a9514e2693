import type { ExecutionStats } from '../store/stats-repository.js';

export interface MetricsSources {
  scripts(): Promise<{ total: number; approved: number; pending: number; rejected: number }>;
  executions(): Promise<ExecutionStats>;
  secrets(): Promise<{ total: number; configured: number }>;
  /** Live threads of this process: main plus worker threads (the spec's `goroutines`). */
  threads(): number;
  /** Runs dropped unrun because their caller had stopped waiting (Prometheus only). */
  expiredRuns?(): Promise<number>;
}

export interface MetricsSnapshot {
  scripts: { total: number; approved: number; pending: number; rejected: number };
  executions: ExecutionStats;
  secrets: { total: number; configured: number };
  system: { uptime_seconds: number; memory_mb: number; goroutines: number };
}

const CACHE_MS = 10_000;

/** The spec allows caching up to 10 s; counts are read from the store at most that often. */
export function createMetricsReader(sources: MetricsSources, startedAt: number) {
  let cached: { at: number; counts: Omit<MetricsSnapshot, 'system'> } | undefined;
  return async function read(): Promise<MetricsSnapshot> {
    const now = Date.now();
    if (!cached || now - cached.at > CACHE_MS) {
      const [scripts, executions, secrets] = await Promise.all([
        sources.scripts(),
        sources.executions(),
        sources.secrets(),
      ]);
      cached = { at: now, counts: { scripts, executions, secrets } };
    }
    return {
      ...cached.counts,
      system: {
        uptime_seconds: Math.floor((now - startedAt) / 1000),
        memory_mb: Math.round((process.memoryUsage().rss / 1024 / 1024) * 10) / 10,
        goroutines: sources.threads(),
      },
    };
  };
}
