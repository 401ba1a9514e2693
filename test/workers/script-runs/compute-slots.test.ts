import { describe, expect, it } from 'vitest';
import {
  computeGate,
  createComputeSlots,
  freeSlots,
} from '../../../src/workers/script-runs/compute-slots.js';

describe('compute slots', () => {
  it('hands out as many slots as it has, and one more only when one is given back', () => {
    const slots = createComputeSlots(2);
    const gate = computeGate(slots);
    expect(gate.enter(Date.now() + 1000)).toBe(true);
    expect(gate.enter(Date.now() + 1000)).toBe(true);
    expect(freeSlots(slots)).toBe(0);
    const started = Date.now();
    expect(gate.enter(Date.now() + 100)).toBe(false);
    // It waited for the deadline without taking a slot.
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(freeSlots(slots)).toBe(0);
    gate.leave();
    expect(gate.enter(Date.now() + 100)).toBe(true);
    gate.leave();
    gate.leave();
    expect(freeSlots(slots)).toBe(2);
  });

  it('lets everything through outside a pool', () => {
    const gate = computeGate(undefined);
    expect(gate.enter(0)).toBe(true);
    gate.leave();
  });
});
