import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { claimWarmUp, createWarmUpFlag } from '../../../src/workers/script-runs/warm-up-claim.js';

describe('the warm-up claim', () => {
  it('goes to the first claimant only', () => {
    const flag = createWarmUpFlag();
    expect(claimWarmUp(flag)).toBe(true);
    expect(claimWarmUp(flag)).toBe(false);
    expect(claimWarmUp(createWarmUpFlag())).toBe(true);
  });

  it('is never granted without the pool flag', () => {
    expect(claimWarmUp(undefined)).toBe(false);
    expect(claimWarmUp(null)).toBe(false);
    expect(claimWarmUp({ warmUp: [0] })).toBe(false);
  });

  it('is shared by threads given the same flag: one of four claims it', async () => {
    const flag = createWarmUpFlag();
    // The same compare-and-swap claimWarmUp does, on the flag as a thread receives it.
    const code = `
      const { parentPort, workerData } = require('node:worker_threads');
      parentPort.postMessage(Atomics.compareExchange(workerData.warmUp, 0, 0, 1) === 0);
    `;
    const claims = await Promise.all(
      Array.from(
        { length: 4 },
        () =>
          new Promise<boolean>((resolve, reject) => {
            const w = new Worker(code, { eval: true, workerData: flag });
            w.once('message', (m: boolean) => resolve(m));
            w.once('error', reject);
          }),
      ),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
  });
});
