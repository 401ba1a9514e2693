import { describe, expect, it } from 'vitest';
import { boundFailure, truncateUtf8 } from '../../../src/workers/script-runs/bound-output.js';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

describe('bounded failure output', () => {
  it('keeps short text whole and cuts long text on a character boundary, with a marker', () => {
    expect(truncateUtf8('short', 100)).toBe('short');
    const cut = truncateUtf8('é'.repeat(100), 51);
    expect(cut).toMatch(/^é{25}… \[truncated: 150 more bytes over the output limit\]$/);
  });

  it('keeps an error and its logs together within the limit', () => {
    const huge = `bad response: ${'x'.repeat(10 * 1024 * 1024)}`;
    const out = boundFailure(huge, ['before'], 4096);
    expect(out.logs).toEqual(['before']);
    expect(out.error.startsWith('bad response: xxx')).toBe(true);
    expect(out.error).toMatch(/truncated: \d+ more bytes over the output limit\]$/);
    expect(bytes(out.error) - bytes(out.error.replace(/… \[truncated.*$/, ''))).toBeLessThan(80);
    expect(bytes(out.error.replace(/… \[truncated.*$/, '')) + bytes('before') + 1).toBe(4096);
  });

  it('leaves the error half the limit when logs filled it, and keeps a short reason whole', () => {
    const logs = Array.from({ length: 100 }, (_, i) => `line ${i} ${'y'.repeat(50)}`);
    const out = boundFailure('E'.repeat(5000), logs, 2048);
    const logBytes = out.logs.reduce((n, l) => n + bytes(l) + 1, 0);
    expect(logBytes).toBeLessThanOrEqual(1024 + 80);
    expect(out.error.startsWith('E'.repeat(500))).toBe(true);
    expect(out.logs.at(-1)).toMatch(/truncated/);
    // A tiny limit still leaves Steward's own reason readable.
    const reason = 'output limit of 100 bytes exceeded';
    expect(boundFailure(reason, ['x'.repeat(98)], 100).error).toBe(reason);
  });

  it('changes nothing within the limit', () => {
    expect(boundFailure('oops', ['a', 'b'], 1024)).toEqual({ error: 'oops', logs: ['a', 'b'] });
  });
});
