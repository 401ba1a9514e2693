import { describe, expect, it } from 'vitest';
import { fails, run } from './helpers.js';

describe('limits', () => {
  it('stops runaway loops at the step limit', () => {
    const src = 'def f():\n    for i in range(100000000):\n        pass\nf()\n';
    expect(fails(src, { limits: { maxSteps: 10_000 } }).message).toMatch(/step limit/);
  });

  it('stops at the wall-time deadline and on cancellation', () => {
    const src = 'def f():\n    for i in range(1000000000):\n        pass\nf()\n';
    expect(fails(src, { limits: { timeoutMs: 50 } }).message).toMatch(/timed out/);
    expect(fails(src, { limits: { signal: { aborted: true } } }).message).toMatch(/cancelled/);
  });

  it('turns deep recursion into a Starlark error, not a JS stack overflow', () => {
    const src = 'def f(n):\n    return f(n + 1)\nf(0)\n';
    expect(fails(src, { options: { recursion: true } }).message).toMatch(/Starlark stack overflow/);
    expect(
      fails(src, { options: { recursion: true }, limits: { maxDepth: 100_000 } }).message,
    ).toMatch(/stack overflow/);
  });

  it('refuses huge allocations at once', () => {
    expect(fails('x = "x" * 10000000000').message).toMatch(/limit|too large|out of range/);
    expect(fails('x = [0] * 1000000000').message).toMatch(/limit|too large|out of range/);
  });

  it('limits print output', () => {
    const src = 'def f():\n    for i in range(1000):\n        print("x" * 100)\nf()\n';
    expect(fails(src, { limits: { maxOutput: 1000 } }).message).toMatch(/print output/);
  });

  it('is deterministic: same program, same steps', () => {
    const src = 'def f():\n    return sorted([i * 7 % 13 for i in range(500)])\nresult = f()\n';
    expect(run(src)).toEqual(run(src));
  });
});
