import { describe, expect, it } from 'vitest';
import { scriptDetailSchema, scriptListEntrySchema } from '../../src/scripts/script-schema.js';
import { type ScriptRecord } from '../../src/contracts/script-record.js';
import { toDetail, toListEntry } from '../../src/scripts/script-views.js';

const base: ScriptRecord = {
  name: 'weather.star',
  source: '# @description: the weather\n# @secrets: API_KEY\nresult = 1\n',
  hash: `sha256:${'a'.repeat(64)}`,
  status: 'pending',
  metadata: { description: 'the weather', author: 'me', version: '1', secrets: ['API_KEY'] },
  created_at: '2026-01-01T00:00:00.000Z',
  modified_at: '2026-01-02T00:00:00.000Z',
  head: '0'.repeat(40),
};

describe('toListEntry', () => {
  it('answers the spec list entry of a pending script, with its path and required secrets', () => {
    const entry = toListEntry(base);
    expect(entry).toEqual({
      name: 'weather.star',
      path: 'scripts/weather.star',
      hash: base.hash,
      status: 'pending',
      description: 'the weather',
      required_secrets: ['API_KEY'],
      created_at: base.created_at,
      modified_at: base.modified_at,
    });
    expect(Object.keys(entry)).toEqual(Object.keys(scriptListEntrySchema.parse(entry)));
  });

  it('names the approval of an approved script, in the spec field order', () => {
    const entry = toListEntry({
      ...base,
      status: 'approved',
      approved_at: '2026-01-03T00:00:00.000Z',
      approved_by: 'admin',
      approved_hash: base.hash,
    });
    expect(Object.keys(entry)).toEqual([
      'name',
      'path',
      'hash',
      'status',
      'description',
      'required_secrets',
      'approved_at',
      'approved_by',
      'created_at',
      'modified_at',
    ]);
    expect(entry).toMatchObject({ approved_at: '2026-01-03T00:00:00.000Z', approved_by: 'admin' });
  });

  it('leaves out approval fields unless the script is approved now, and never shows rejections', () => {
    const stale = toListEntry({
      ...base,
      approved_at: '2026-01-03T00:00:00.000Z',
      approved_by: 'admin',
    });
    expect(stale).not.toHaveProperty('approved_at');
    expect(stale).not.toHaveProperty('approved_by');
    const rejected = toListEntry({
      ...base,
      status: 'rejected',
      rejected_at: '2026-01-03T00:00:00.000Z',
      rejected_by: 'admin',
      reason: 'no',
    });
    expect(Object.keys(rejected)).not.toContain('reason');
    expect(Object.keys(rejected)).not.toContain('rejected_by');
  });
});

describe('toDetail', () => {
  it('answers the spec detail with the history, without internal fields', () => {
    const history = [{ timestamp: '2026-01-04T00:00:00.000Z', success: true, duration_ms: 12 }];
    const detail = toDetail({ ...base, approved_hash: base.hash }, history);
    expect(detail).toEqual({
      name: 'weather.star',
      source: base.source,
      hash: base.hash,
      status: 'pending',
      metadata: { ...base.metadata, secret_destinations: {} },
      execution_history: history,
      capabilities: {
        secrets: [{ name: 'API_KEY', destinations: [], placement: null }],
        hosts: [],
        modules: [],
        functions: [],
        hidden_characters: [],
      },
    });
    expect(scriptDetailSchema.parse(detail)).toEqual(detail);
  });

  it('adds the approval, the rejection and the approved version for review', () => {
    const approvedAt = '2026-01-05T00:00:00.000Z';
    const approvedDetail = toDetail(
      { ...base, status: 'approved', approved_at: approvedAt, approved_by: 'admin' },
      [],
      { commit: 'c'.repeat(40), source: base.source },
    );
    expect(approvedDetail).toMatchObject({
      approved_at: approvedAt,
      approved_by: 'admin',
      approved_commit: 'c'.repeat(40),
    });
    const rejectedDetail = toDetail(
      { ...base, status: 'rejected', rejected_at: approvedAt, rejected_by: 'admin', reason: 'no' },
      [],
    );
    expect(rejectedDetail).toMatchObject({ rejected_by: 'admin', reason: 'no' });
    expect(scriptDetailSchema.parse(rejectedDetail)).toEqual(rejectedDetail);
  });

  it('copies the metadata, so changing the answer cannot change the record', () => {
    const record = structuredClone(base);
    const detail = toDetail(record, []);
    detail.metadata.description = 'changed';
    expect(record.metadata.description).toBe('the weather');
  });
});
