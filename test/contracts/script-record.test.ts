import { describe, expect, it } from 'vitest';
import {
  decodeScript,
  decodeVersion,
  encodeScript,
  scriptRecordSchema,
  type ScriptRecord,
} from '../../src/contracts/script-record.js';

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
