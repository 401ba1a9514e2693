import { readdirSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { threadCount } from '../../src/api/threads.js';

describe('thread count', () => {
  it('counts the live threads of this process', () => {
    expect(threadCount()).toBeGreaterThanOrEqual(1);
    expect(threadCount()).toBe(readdirSync('/proc/self/task').length);
  });

  it('grows while a worker thread runs', async () => {
    const before = threadCount();
    const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
    await new Promise<void>((resolve) => worker.once('online', () => resolve()));
    try {
      expect(threadCount()).toBeGreaterThan(before);
    } finally {
      await worker.terminate();
    }
  });
});
