import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMetricsReader, type MetricsSources } from '../../src/api/metrics.js';

function sources() {
  const calls = { scripts: 0, executions: 0, secrets: 0 };
  const src: MetricsSources = {
    async scripts() {
      calls.scripts++;
      return { total: calls.scripts, approved: 1, pending: 0, rejected: 0 };
    },
    async executions() {
      calls.executions++;
      return { total: 4, success: 3, failed: 1, avg_duration_ms: 12 };
    },
    async secrets() {
      calls.secrets++;
      return { total: 2, configured: 1 };
    },
    threads: () => 7,
  };
  return { src, calls };
}

describe('metrics reader', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers the spec shape from its sources', async () => {
    const { src } = sources();
    const read = createMetricsReader(src, Date.now() - 65_500);
    const snapshot = await read();
    expect(snapshot).toMatchObject({
      scripts: { total: 1, approved: 1, pending: 0, rejected: 0 },
      executions: { total: 4, success: 3, failed: 1, avg_duration_ms: 12 },
      secrets: { total: 2, configured: 1 },
      system: { uptime_seconds: 65, goroutines: 7 },
    });
    expect(snapshot.system.memory_mb).toBeGreaterThan(0);
    // One decimal place at most.
    expect(Math.round(snapshot.system.memory_mb * 10)).toBe(snapshot.system.memory_mb * 10);
  });

  it('reads the store at most once per 10 s, but the system figures every time', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_000_000);
    const { src, calls } = sources();
    const read = createMetricsReader(src, 1_000_000);
    await read();
    vi.setSystemTime(1_000_000 + 10_000);
    const cached = await read();
    expect(calls).toEqual({ scripts: 1, executions: 1, secrets: 1 });
    expect(cached.scripts.total).toBe(1);
    expect(cached.system.uptime_seconds).toBe(10);

    vi.setSystemTime(1_000_000 + 10_001);
    const fresh = await read();
    expect(calls).toEqual({ scripts: 2, executions: 2, secrets: 2 });
    expect(fresh.scripts.total).toBe(2);
  });

  it('caches per reader, not per process', async () => {
    const { src, calls } = sources();
    await createMetricsReader(src, Date.now())();
    await createMetricsReader(src, Date.now())();
    expect(calls.scripts).toBe(2);
  });
});
