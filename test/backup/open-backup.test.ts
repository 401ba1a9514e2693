import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { backupLines } from '../../src/backup/create-backup.js';
import { openBackup } from '../../src/backup/open-backup.js';
import type { BackupRepository, Snapshot } from '../../src/store/backup-repository.js';
import { keys } from '../../src/store/keys.js';
import { approvedRecord, testSigner } from '../support/script-record.js';
import { encodeScript } from '../../src/contracts/script-record.js';

const key = randomBytes(32);
const other = randomBytes(32);

/** A store of one approved script and two audit entries, as a snapshot gives it. */
function repo(): Pick<BackupRepository, 'snapshot' | 'auditEntries'> {
  const script = approvedRecord('a.star', 'def main():\n    return 1\n');
  const snapshot: Snapshot = {
    at_ms: Date.parse('2026-05-01T03:15:00Z'),
    records: [
      {
        key: keys.script('a.star'),
        type: 'hash',
        expire_at_ms: null,
        value: Object.entries(encodeScript(script)),
      },
      { key: keys.scriptIndex(), type: 'set', expire_at_ms: null, value: ['a.star'] },
    ],
    audit: { first: '1-0', last: '2-0', count: 2, head: 'h2', anchor: '' },
    schema: { version: 2, written_by: '0.1.0' },
    unknown_keys: 0,
    method: 'watch',
    attempts: 1,
  };
  return {
    snapshot: async () => snapshot,
    async *auditEntries() {
      yield [
        { id: '1-0', json: '{"n":1}', hash: 'h1' },
        { id: '2-0', json: '{"n":2}', hash: 'h2' },
      ];
    },
  };
}

async function file(): Promise<Buffer> {
  let text = '';
  for await (const line of backupLines({
    repo: repo(),
    secretsKey: key,
    verifier: testSigner,
    legacyApprovalsSigned: true,
    release: '0.1.0',
    prefix: 'steward:',
  })) {
    text += line;
  }
  return Buffer.from(text);
}

const here = [{ key, origin: 'test' }];

describe('openBackup', () => {
  it('reads back what was written, with the approvals that verified', async () => {
    const contents = openBackup(await file(), here);
    expect(contents.header).toMatchObject({ schema_version: 2, records: 2 });
    expect(contents.records.map((r) => r.key)).toEqual([keys.script('a.star'), keys.scriptIndex()]);
    expect(contents.approvals).toEqual([
      expect.objectContaining({ name: 'a.star', approved_by: 'admin' }),
    ]);
    expect(contents.audit.map((e) => e.id)).toEqual(['1-0', '2-0']);
  });

  it('says which key it needs when this deployment has another or none', async () => {
    const bytes = await file();
    for (const keysHere of [[], [{ key: other, origin: 'data/secrets_key' }]]) {
      expect(() => openBackup(bytes, keysHere)).toThrow(
        expect.objectContaining({ details: { reason: 'secrets_key' } }),
      );
    }
    // A rotation's staged key is found too.
    expect(() =>
      openBackup(bytes, [
        { key: other, origin: 'file' },
        { key, origin: 'staged' },
      ]),
    ).not.toThrow();
  });

  it('refuses any change, a cut, or another kind of file, before believing a line', async () => {
    const bytes = await file();
    const text = bytes.toString();
    const reason = (b: Buffer) => {
      try {
        openBackup(b, here);
        return 'opened';
      } catch (err) {
        return (err as { details: { reason: string } }).details.reason;
      }
    };
    // One character of one record.
    expect(reason(Buffer.from(text.replace('"a.star"]', '"b.star"]')))).toBe('altered');
    // A record dropped.
    const lines = text.split('\n');
    expect(reason(Buffer.from([lines[0], ...lines.slice(2)].join('\n')))).toBe('altered');
    // The header's schema version lowered, to get a migration run on the data.
    expect(reason(Buffer.from(text.replace('"schema_version":2', '"schema_version":1')))).toBe(
      'altered',
    );
    expect(reason(bytes.subarray(0, bytes.length - 1))).toBe('format');
    expect(reason(bytes.subarray(0, bytes.length - 20))).toBe('format');
    expect(reason(bytes.subarray(0, text.indexOf('\n') + 1))).toBe('format');
    expect(reason(Buffer.from('{"hello": "world"}\n'))).toBe('format');
    expect(reason(Buffer.alloc(0))).toBe('format');
  });
});
