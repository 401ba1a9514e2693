import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import {
  failedOutcome,
  isRefused,
  redactRunResult,
  refusedOutcome,
  runAnswer,
  runDeadline,
  runDeadlineMargin,
  runOutcome,
  runRefusal,
  scriptGlobals,
  scriptRunPayload,
  timedOutcome,
} from '../../src/queue/script-runs.js';
import { redactDeep } from '../../src/secrets/redact-deep.js';
import { hashSource } from '../../src/contracts/script-hashes.js';
import { findSyntaxError } from '../../src/scripts/syntax-check.js';

const hash = hashSource('result = 1\n');

describe('runDeadline', () => {
  it('is the wall limit plus a 5 s margin', () => {
    expect(runDeadlineMargin).toBe(5_000);
    expect(runDeadline({ wall_time: 1 })).toBe(5_001);
    expect(runDeadline({ wall_time: 30_000 })).toBe(35_000);
  });

  it('follows the configured wall time, default 30 s', () => {
    const defaults = configSchema.parse({}).scripts.limits;
    expect(runDeadline(defaults)).toBe(35_000);
  });
});

describe('scriptGlobals', () => {
  it('are the names a script sees besides the builtins', () => {
    expect([...scriptGlobals]).toEqual([
      'http',
      'json',
      'time',
      'secrets',
      'format',
      'hmac',
      'base64',
      'args',
    ]);
  });

  it('are exactly what the syntax check accepts beyond the builtins', () => {
    for (const name of scriptGlobals) {
      expect(findSyntaxError('g.star', `x = ${name}\n`), name).toBeNull();
    }
    for (const name of ['os', 'load_secret', 'fetch', 'require', 'process']) {
      expect(findSyntaxError('g.star', `x = ${name}\n`), name).not.toBeNull();
    }
  });
});

describe('scriptRunPayload', () => {
  it('accepts a dict or a list of arguments and defaults allowUnapproved to false', () => {
    const dict = scriptRunPayload.parse({ name: 'a.star', hash, args: { a: 1 }, origin: 'api' });
    expect(dict).toEqual({
      name: 'a.star',
      hash,
      args: { a: 1 },
      origin: 'api',
      allowUnapproved: false,
    });
    const list = scriptRunPayload.parse({
      name: 'a.star',
      hash,
      args: [1, 'two'],
      function: 'main',
      origin: 'mcp',
      allowUnapproved: true,
    });
    expect(list).toMatchObject({ args: [1, 'two'], function: 'main', allowUnapproved: true });
  });

  it('refuses a hash that is not sha256 of 64 lowercase hex digits', () => {
    for (const bad of [
      '',
      'sha256:',
      `sha256:${'A'.repeat(64)}`,
      `sha1:${'a'.repeat(40)}`,
      `${hash}x`,
    ]) {
      expect(
        scriptRunPayload.safeParse({ name: 'a.star', hash: bad, args: {}, origin: 'api' }).success,
        bad,
      ).toBe(false);
    }
  });

  it('refuses an unknown origin and arguments that are neither dict nor list', () => {
    const base = { name: 'a.star', hash, args: {}, origin: 'api' };
    expect(scriptRunPayload.safeParse({ ...base, origin: 'cli' }).success).toBe(false);
    for (const args of ['text', 1, null, undefined]) {
      expect(scriptRunPayload.safeParse({ ...base, args }).success, String(args)).toBe(false);
    }
    expect(scriptRunPayload.safeParse({ ...base, allowUnapproved: 'yes' }).success).toBe(false);
  });
});

describe('runOutcome and runAnswer', () => {
  const ok = { success: true, result: { value: 1 }, duration_ms: 3, logs: ['a'] };
  const bad = { success: false, error: 'boom', duration_ms: 3, logs: ['a'] };

  it('accepts a result and a refusal, and nothing but the five refusals', () => {
    expect(runOutcome.parse(ok)).toEqual(ok);
    for (const refusal of runRefusal.options) {
      expect(runOutcome.parse({ ...bad, refusal })).toMatchObject({ refusal });
    }
    expect(runRefusal.options).toEqual([
      'not_found',
      'pending',
      'rejected',
      'modified',
      'unverified',
    ]);
    expect(runOutcome.safeParse({ ...bad, refusal: 'busy' }).success).toBe(false);
  });

  it('wants the error of a failure, and a duration on every result', () => {
    expect(runOutcome.safeParse({ ...bad, error: undefined }).success).toBe(false);
    expect(runOutcome.safeParse({ ...bad, duration_ms: undefined }).success).toBe(false);
    expect(runOutcome.safeParse({ ...ok, duration_ms: undefined }).success).toBe(false);
    expect(runOutcome.safeParse({ ...ok, success: 'yes' }).success).toBe(false);
  });

  it('wants a whole, non-negative duration and a list of log lines', () => {
    expect(runOutcome.safeParse({ ...ok, duration_ms: -1 }).success).toBe(false);
    expect(runOutcome.safeParse({ ...ok, duration_ms: 1.5 }).success).toBe(false);
    expect(runOutcome.safeParse({ ...ok, logs: 'a' }).success).toBe(false);
    expect(runOutcome.safeParse({ success: true, duration_ms: 0 }).success).toBe(false);
  });

  it('tells a refusal from a failure and a success', () => {
    expect(isRefused(runOutcome.parse({ ...bad, refusal: 'pending' }))).toBe(true);
    expect(isRefused(runOutcome.parse(bad))).toBe(false);
    expect(isRefused(runOutcome.parse(ok))).toBe(false);
  });

  it('runAnswer, what leaves Steward, has no refusal field', () => {
    expect(runAnswer.parse({ ...bad, refusal: 'pending' })).toEqual(bad);
    expect(runAnswer.parse({ ...ok, refusal: 'pending' })).toEqual(ok);
  });

  it('makes every outcome in one place, with its duration rounded and never negative', () => {
    expect(timedOutcome({ success: true, result: 1, logs: [] }, 2.6)).toEqual({
      success: true,
      result: 1,
      duration_ms: 3,
      logs: [],
    });
    expect(timedOutcome(failedOutcome('no', ['l']), -4)).toEqual({
      success: false,
      error: 'no',
      duration_ms: 0,
      logs: ['l'],
    });
    expect(refusedOutcome('modified', 'no')).toEqual({
      success: false,
      error: 'no',
      duration_ms: 0,
      logs: [],
      refusal: 'modified',
    });
  });

  it('redacts what the script produced, never the fields of the result', () => {
    // A secret whose value occurs in the result's own keys ("ration" in "duration_ms"): the
    // fuzz of issue 47 stored such a secret, and every later run answered 500.
    const clean = <T>(value: T): T => redactDeep(value, (text) => text.replaceAll('ration', '█'));
    const done = {
      success: true as const,
      result: { ration: 'ration' },
      duration_ms: 1,
      logs: ['ration'],
    };
    expect(redactRunResult(done, clean)).toEqual({
      success: true,
      result: { '█': '█' },
      duration_ms: 1,
      logs: ['█'],
    });
    const failedRun = { success: false as const, error: 'ration!', duration_ms: 1, logs: [] };
    expect(redactRunResult(failedRun, clean)).toEqual({ ...failedRun, error: '█!' });
    expect(runOutcome.safeParse(redactRunResult(done, clean)).success).toBe(true);
  });
});
