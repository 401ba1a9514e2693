import { describe, expect, it } from 'vitest';
import {
  bareScriptName,
  decodeScript,
  decodeVersion,
  encodeScript,
  isScriptName,
  scriptNameSchema,
  scriptRecordSchema,
  toScriptName,
  type ScriptRecord,
} from '../../src/scripts/script-schema.js';

const approved: ScriptRecord = {
  name: 'report.star',
  source: 'result = 1\n',
  hash: 'sha256:abc',
  status: 'approved',
  metadata: { description: 'd', author: 'a', version: '1', secrets: ['K'] },
  created_at: '2026-01-01T00:00:00.000Z',
  modified_at: '2026-01-02T00:00:00.000Z',
  head: 'c'.repeat(40),
  approved_at: '2026-01-03T00:00:00.000Z',
  approved_by: 'admin',
  approved_hash: 'sha256:abc',
};

describe('script name rule', () => {
  it('takes letters, digits, _ and - ending in .star, at most 64 before the extension', () => {
    for (const name of ['a.star', 'A_b-9.star', `${'x'.repeat(64)}.star`]) {
      expect(isScriptName(name), name).toBe(true);
      expect(scriptNameSchema.safeParse(name).success, name).toBe(true);
    }
    for (const name of [
      'a',
      '.star',
      '-a.star',
      '_a.star',
      'a b.star',
      'a/b.star',
      `${'x'.repeat(65)}.star`,
    ]) {
      expect(isScriptName(name), name).toBe(false);
      const parsed = scriptNameSchema.safeParse(name);
      expect(parsed.success, name).toBe(false);
      expect(parsed.error?.issues[0]?.message).toBe(
        `invalid script name ${JSON.stringify(name)}: letters, digits, _ and -, ending in .star`,
      );
    }
  });

  it('maps tool-server names to API names and back', () => {
    expect(toScriptName('report')).toBe('report.star');
    expect(toScriptName('report.star')).toBe('report.star');
    expect(bareScriptName('report.star')).toBe('report');
    expect(bareScriptName('report')).toBe('report');
  });
});

describe('script hash form', () => {
  it('round-trips a record, writing optional fields only when set', () => {
    const fields = encodeScript(approved);
    expect(fields).not.toHaveProperty('rejected_at');
    expect(JSON.parse(fields.metadata as string)).toEqual(approved.metadata);
    const decoded = decodeScript(fields);
    expect(decoded).toEqual(approved);
    expect(scriptRecordSchema.parse(decoded)).toEqual(approved);
  });

  it('reads empty optional fields as absent and bad metadata as empty', () => {
    const fields = { ...encodeScript(approved), reason: '', metadata: '{not json' };
    const decoded = decodeScript(fields);
    expect(decoded).not.toHaveProperty('reason');
    expect(decoded?.metadata).toEqual({ description: '', author: '', version: '', secrets: [] });
  });

  it('refuses a hash missing a required field or carrying an unknown status', () => {
    const { head: _head, ...noHead } = encodeScript(approved);
    expect(decodeScript(noHead)).toBeNull();
    expect(decodeScript({ ...encodeScript(approved), status: 'archived' })).toBeNull();
    expect(decodeScript({})).toBeNull();
  });

  it('decodes a version only when every field is there', () => {
    const version = {
      commit: 'c'.repeat(40),
      message: 'created',
      author: 'admin',
      timestamp: '2026-01-01T00:00:00.000Z',
      source: 'x = 1\n',
      hash: 'sha256:def',
    };
    expect(decodeVersion(version)).toEqual(version);
    const { source: _source, ...noSource } = version;
    expect(decodeVersion(noSource)).toBeNull();
  });
});
