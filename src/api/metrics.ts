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

export interface MetricsReading {
  snapshot: MetricsSnapshot;
  /** How old the counts are: 0 when just read, more when the store did not answer in time. */
  ageMs: number;
}

export interface MetricsReader {
  /** The counts, read from the store at most every `cacheMs` (the spec allows 10 s). */
  (): Promise<MetricsSnapshot>;
  /**
   * The same within `ms`: when the store does not answer in time, the last counts with their
   * age, or undefined when there are none. The store read goes on and fills the cache.
   */
  within(ms: number): Promise<MetricsReading | undefined>;
}

export function createMetricsReader(
  sources: MetricsSources,
  startedAt: number,
  cacheMs = CACHE_MS,
): MetricsReader {
  let cached: { at: number; counts: Omit<MetricsSnapshot, 'system'> } | undefined;
  // One store read at a time: scrapes during an outage share it instead of piling up.
  let refreshing: Promise<void> | undefined;
  const refresh = () =>
    (refreshing ??= Promise.all([sources.scripts(), sources.executions(), sources.secrets()])
      .then(([scripts, executions, secrets]) => {
        cached = { at: Date.now(), counts: { scripts, executions, secrets } };
      })
      .finally(() => {
        refreshing = undefined;
      }));
  const snapshot = (counts: Omit<MetricsSnapshot, 'system'>): MetricsSnapshot => ({
    ...counts,
    system: {
      uptime_seconds: Math.floor((Date.now() - startedAt) / 1000),
      memory_mb: Math.round((process.memoryUsage().rss / 1024 / 1024) * 10) / 10,
      goroutines: sources.threads(),
    },
  });
  const fresh = () => cached !== undefined && Date.now() - cached.at <= cacheMs;
  const read = async (): Promise<MetricsSnapshot> => {
    if (!fresh()) await refresh();
    return snapshot(cached!.counts);
  };
  read.within = async (ms: number): Promise<MetricsReading | undefined> => {
    if (!fresh()) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
      });
      // A failed read leaves the old counts; the caller sees their age.
      await Promise.race([refresh().catch(() => {}), late]).finally(() => clearTimeout(timer));
    }
    if (!cached) return undefined;
    return { snapshot: snapshot(cached.counts), ageMs: Date.now() - cached.at };
  };
  return read;
}
