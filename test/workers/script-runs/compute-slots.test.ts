import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import {
  computeGate,
  createComputeSlots,
  freeSlots,
  releaseOwner,
} from '../../../src/workers/script-runs/compute-slots.js';

describe('compute slots', () => {
  it('hands out as many slots as it has, and one more only when one is given back', () => {
    const slots = createComputeSlots(2);
    const a = computeGate(slots, 1);
    const b = computeGate(slots, 2);
    const c = computeGate(slots, 3);
    expect(a.enter(Date.now() + 1000)).toBe(true);
    expect(b.enter(Date.now() + 1000)).toBe(true);
    expect(freeSlots(slots)).toBe(0);
    const started = Date.now();
    expect(c.enter(Date.now() + 100)).toBe(false);
    // It waited for the deadline without taking a slot.
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(freeSlots(slots)).toBe(0);
    a.leave();
    expect(c.enter(Date.now() + 100)).toBe(true);
    c.leave();
    b.leave();
    expect(freeSlots(slots)).toBe(2);
  });

  it('gives a slot back once, however often leave is called', () => {
    const slots = createComputeSlots(2);
    const a = computeGate(slots, 1);
    expect(a.enter(Date.now() + 100)).toBe(true);
    // A second enter of the same gate holds the one slot it has.
    expect(a.enter(Date.now() + 100)).toBe(true);
    expect(freeSlots(slots)).toBe(1);
    a.leave();
    a.leave();
    expect(freeSlots(slots)).toBe(2);
    // Another gate's slot is never given back by this one's extra leave.
    const b = computeGate(slots, 2);
    expect(b.enter(Date.now() + 100)).toBe(true);
    a.leave();
    expect(freeSlots(slots)).toBe(1);
  });

  it('frees exactly the slots of an owner that is gone, once', () => {
    const slots = createComputeSlots(3);
    const dead = computeGate(slots, 7);
    const alive = computeGate(slots, 8);
    expect(dead.enter(Date.now() + 100)).toBe(true);
    expect(alive.enter(Date.now() + 100)).toBe(true);
    expect(releaseOwner(slots, 7)).toBe(1);
    expect(releaseOwner(slots, 7)).toBe(0);
    expect(freeSlots(slots)).toBe(2);
    // The slot the dead owner held went to someone else: its late leave must not free it.
    const next = computeGate(slots, 9);
    expect(next.enter(Date.now() + 100)).toBe(true);
    expect(next.enter(Date.now() + 100)).toBe(true);
    dead.leave();
    expect(freeSlots(slots)).toBe(1);
    alive.leave();
    next.leave();
    expect(freeSlots(slots)).toBe(3);
  });

  it('wakes a thread waiting for a slot when the slots of a dead thread are freed', async () => {
    const slots = createComputeSlots(1);
    const holder = computeGate(slots, 99);
    expect(holder.enter(Date.now() + 100)).toBe(true);
    // A real thread waits in Atomics.wait (this thread cannot: it would block the test).
    const waiter = new Worker(
      `const { workerData, parentPort } = require('node:worker_threads');
       const cells = new Int32Array(workerData);
       const started = Date.now();
       for (;;) {
         const seen = Atomics.load(cells, 1);
         if (Atomics.compareExchange(cells, 0, 0, 5) === 0) break;
         Atomics.wait(cells, 1, seen, 5000);
       }
       parentPort.postMessage(Date.now() - started);`,
      { eval: true, workerData: slots },
    );
    const waited = new Promise<number>((resolve) => waiter.once('message', resolve));
    await new Promise((resolve) => setTimeout(resolve, 100));
    releaseOwner(slots, 99);
    expect(await waited).toBeLessThan(4000);
    expect(freeSlots(slots)).toBe(0);
    expect(releaseOwner(slots, 5)).toBe(1);
    await waiter.terminate();
  });

  it('lets everything through outside a pool', () => {
    const gate = computeGate(undefined, 0);
    expect(gate.enter(0)).toBe(true);
    gate.leave();
  });
});
