import { describe, expect, it } from 'vitest';
import { createAdmission } from '../../../src/workers/script-runs/admission.js';

const never = new AbortController().signal;
const later = () => Date.now() + 10_000;

describe('admission', () => {
  it('admits up to its slots at once, then first come first served as runs leave', async () => {
    const admission = createAdmission(2);
    expect(await admission.enter(later(), never)).toBe(true);
    expect(await admission.enter(later(), never)).toBe(true);
    const order: string[] = [];
    const third = admission.enter(later(), never).then(() => order.push('third'));
    const fourth = admission.enter(later(), never).then(() => order.push('fourth'));
    expect(admission.queued).toBe(2);
    admission.leave();
    await third;
    expect(order).toEqual(['third']);
    admission.leave();
    await fourth;
    expect(order).toEqual(['third', 'fourth']);
    expect(admission.computing).toBe(2);
  });

  it('a waiting run gives its place up and counts again when it resumes, over the slots if need be', async () => {
    const admission = createAdmission(1);
    await admission.enter(later(), never);
    const next = admission.enter(later(), never);
    admission.leave(); // the first run waits on I/O
    expect(await next).toBe(true);
    admission.resume(); // and computes again beside the second
    expect(admission.computing).toBe(2);
    admission.leave();
    admission.leave();
    expect(admission.computing).toBe(0);
  });

  it('answers false at the deadline and forgets the waiter', async () => {
    const admission = createAdmission(1);
    await admission.enter(later(), never);
    expect(await admission.enter(Date.now() + 30, never)).toBe(false);
    expect(admission.queued).toBe(0);
    admission.leave();
    expect(admission.computing).toBe(0);
  });

  it('rejects with the abort reason, queued or not, and forgets the waiter', async () => {
    const admission = createAdmission(1);
    await admission.enter(later(), never);
    const controller = new AbortController();
    const queued = admission.enter(later(), controller.signal);
    controller.abort(new Error('caller left'));
    await expect(queued).rejects.toThrow('caller left');
    expect(admission.queued).toBe(0);
    await expect(admission.enter(later(), controller.signal)).rejects.toThrow('caller left');
    admission.leave();
    expect(admission.computing).toBe(0);
  });
});
