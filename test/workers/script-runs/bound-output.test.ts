import { describe, expect, it } from 'vitest';
import {
  boundFailure,
  encodedBytes,
  truncateEncoded,
} from '../../../src/workers/script-runs/bound-output.js';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

describe('bounded failure output', () => {
  it('keeps short text whole and cuts long text on a character boundary, with a marker', () => {
    expect(truncateEncoded('short', 100)).toBe('short');
    const cut = truncateEncoded('é'.repeat(100), 51);
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

  it('counts text as it is sent, JSON-encoded: control characters take six bytes each', () => {
    // fail(chr(1) * 400000) answered 2.4 MB under a 1 MiB limit.
    const limit = 1024 * 1024;
    const out = boundFailure('\u0001'.repeat(400_000), [], limit);
    expect(bytes(JSON.stringify(out.error))).toBeLessThan(limit + 100);
    expect(out.error).toMatch(/^\u0001+… \[truncated: \d+ more bytes over the output limit\]$/);
    const logs = boundFailure('failed', ['"'.repeat(300_000), '\\'.repeat(300_000)], limit).logs;
    expect(bytes(JSON.stringify(logs))).toBeLessThan(limit + 200);
    expect(encodedBytes('a\u0001"\n€😀\ud800')).toBe(1 + 6 + 2 + 2 + 3 + 4 + 6);
    // Cut before a character whose escape would pass the limit, never inside a pair.
    expect(truncateEncoded('😀'.repeat(10), 6)).toMatch(/^😀… \[truncated: 36 more bytes/);
    expect(truncateEncoded('a\u0001'.repeat(10), 10)).toMatch(
      /^a\u0001a… \[truncated: 62 more bytes/,
    );
    // A lone half of a pair is escaped as \uXXXX (6 bytes), high or low, at the end or not.
    const mixed = '😀\ud800x\udc00'.repeat(50);
    for (const max of [5, 6, 9, 10, 11, 16, 17, 100, 1000]) {
      const kept = truncateEncoded(mixed, max).replace(/… \[truncated: \d+ more bytes.*$/, '');
      expect(encodedBytes(kept)).toBeLessThanOrEqual(max);
      expect(mixed.startsWith(kept)).toBe(true);
      if (kept !== mixed)
        expect(encodedBytes(mixed.slice(0, kept.length + 1))).toBeGreaterThan(max);
    }
  });

  it('changes nothing within the limit', () => {
    expect(boundFailure('oops', ['a', 'b'], 1024)).toEqual({ error: 'oops', logs: ['a', 'b'] });
  });
});
