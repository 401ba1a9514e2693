import { describe, expect, it } from 'vitest';
import {
  approveBody,
  approvedSchema,
  commitParams,
  createBody,
  nameParams,
  rejectBody,
  rejectedSchema,
  restoredSchema,
  runResultSchema,
  testBody,
} from '../../../../src/api/routes/scripts/schemas.js';

const message = (result: { success: boolean; error?: { issues: Array<{ message: string }> } }) =>
  result.error?.issues.map((i) => i.message).join('; ');

describe('script route schemas', () => {
  it('checks every :name against the domain rule', () => {
    expect(nameParams.safeParse({ name: 'weather.star' }).success).toBe(true);
    for (const name of [
      'weather',
      '-x.star',
      '.hidden.star',
      '../etc.star',
      `${'a'.repeat(65)}.star`,
    ]) {
      const parsed = nameParams.safeParse({ name });
      expect(parsed.success, name).toBe(false);
      expect(message(parsed)).toBe(
        `invalid script name ${JSON.stringify(name)}: letters, digits, _ and -, ending in .star`,
      );
    }
    expect(commitParams.safeParse({ name: 'bad', commit: 'abc' }).success).toBe(false);
    expect(createBody.safeParse({ name: 'a.star', source: '' }).success).toBe(true);
    expect(createBody.safeParse({ name: 'a.star' }).success).toBe(false);
  });

  it('takes an approval with or without a body, and a hash only in its sha256 form', () => {
    expect(approveBody.parse(undefined)).toBeUndefined();
    expect(approveBody.parse(null)).toBeNull();
    expect(approveBody.parse({})).toEqual({});
    const hash = `sha256:${'ab'.repeat(32)}`;
    expect(approveBody.parse({ hash })).toEqual({ hash });
    expect(approveBody.safeParse({ hash: 1 }).success).toBe(false);
    // A malformed hash is a bad request (400), not a changed script (409).
    expect(message(approveBody.safeParse({ hash: 'abc' }))).toBe(
      'must be "sha256:" followed by 64 lowercase hex digits',
    );
  });

  it('requires a non-blank rejection reason and trims it', () => {
    expect(rejectBody.parse({ reason: '  unsafe  ' })).toEqual({ reason: 'unsafe' });
    for (const body of [{ reason: '   ' }, { reason: '' }, {}]) {
      expect(rejectBody.safeParse(body).success).toBe(false);
    }
    expect(message(rejectBody.safeParse({ reason: ' ' }))).toBe('a reason is required');
  });

  it('defaults test-run arguments to {} and takes only a Starlark identifier as function', () => {
    expect(testBody.parse({})).toEqual({ args: {} });
    expect(testBody.parse(null)).toBeNull();
    expect(testBody.parse({ args: { n: 1 }, function: '_main2' })).toEqual({
      args: { n: 1 },
      function: '_main2',
    });
    for (const fn of ['2main', 'a-b', 'a.b', '', 'main()']) {
      const parsed = testBody.safeParse({ function: fn });
      expect(parsed.success, fn).toBe(false);
    }
    expect(message(testBody.safeParse({ function: 'x y' }))).toBe('a Starlark identifier');
    expect(testBody.safeParse({ args: [1] }).success).toBe(false);
  });

  it('answers a run result with `result` on success and `error` on failure, never both', () => {
    const ok = { success: true, result: { n: 1 }, duration_ms: 3, logs: ['hi'] };
    expect(runResultSchema.parse({ ...ok, error: 'dropped' })).toEqual(ok);
    const failed = { success: false, error: 'boom', duration_ms: 3, logs: [] };
    expect(runResultSchema.parse({ ...failed, result: 'dropped' })).toEqual(failed);
    expect(runResultSchema.safeParse({ success: false, duration_ms: 1, logs: [] }).success).toBe(
      false,
    );
    // Refusals have become errors before an answer is written.
    expect(runResultSchema.parse({ ...ok, refusal: 'pending' })).toEqual(ok);
  });

  it('requires the approval and rejection fields in their answers', () => {
    const approved = {
      name: 'a.star',
      status: 'approved',
      approved_at: '2026-01-01T00:00:00Z',
      approved_by: 'admin',
    };
    expect(approvedSchema.parse(approved)).toEqual(approved);
    expect(approvedSchema.safeParse({ ...approved, approved_by: undefined }).success).toBe(false);
    expect(approvedSchema.safeParse({ ...approved, status: 'pending' }).success).toBe(false);
    const rejected = {
      name: 'a.star',
      status: 'rejected',
      rejected_at: '2026-01-01T00:00:00Z',
      rejected_by: 'admin',
      reason: 'no',
    };
    expect(rejectedSchema.parse(rejected)).toEqual(rejected);
    expect(rejectedSchema.safeParse({ ...rejected, reason: undefined }).success).toBe(false);
    expect(
      restoredSchema.parse({
        name: 'a.star',
        status: 'pending',
        restored_from: 'abc',
        source: 'x',
      }),
    ).toEqual({ name: 'a.star', status: 'pending', restored_from: 'abc' });
  });
});
