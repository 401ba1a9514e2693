import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backupMac } from '../../src/backup/backup-format.js';
import { createApprovalSigner } from '../../src/scripts/approval-signature.js';
import { hashSource } from '../../src/contracts/script-hashes.js';
import { parseMetadata } from '../../src/scripts/metadata.js';
import type { ScriptRecord } from '../../src/contracts/script-record.js';
import { approvalKeyFile, legacyApprovalsMarker } from '../../src/secrets/approval-key.js';
import { keys } from '../../src/store/keys.js';
import { createMetaRepository } from '../../src/store/meta-repository.js';
import { createScriptRepository } from '../../src/store/script-repository.js';
import { cliPath } from '../support/processes.js';
import { dropPrefix, storeRedis, testRedisUrl, uniquePrefix } from '../support/redis.js';

/** An approved script as release 1 stored it: no signature, and no schema version anywhere. */
function releaseOneApproval(name: string, source: string): ScriptRecord {
  const hash = hashSource(source);
  return {
    name,
    source,
    hash,
    status: 'approved',
    metadata: parseMetadata(source),
    created_at: '2026-10-01T00:00:00.000Z',
    modified_at: '2026-10-01T00:00:00.000Z',
    head: 'a'.repeat(40),
    approved_at: '2026-10-01T00:00:00.000Z',
    approved_by: 'admin',
    approved_hash: hash,
  };
}

interface Deployment {
  dir: string;
  prefix: string;
  data: string;
}

const made: Deployment[] = [];
afterAll(async () => {
  for (const d of made) {
    await dropPrefix(d.prefix);
    rmSync(d.dir, { recursive: true, force: true });
  }
});

/** A deployment's folders; `secretsKey` goes into its data dir, `migrated` writes the marker. */
function deployment(label: string, opts: { secretsKey: string; migrated: boolean }): Deployment {
  const dir = mkdtempSync(path.join(os.tmpdir(), `steward-${label}-`));
  const d = { dir, prefix: uniquePrefix(label), data: path.join(dir, 'data') };
  mkdirSync(d.data, { recursive: true, mode: 0o700 });
  writeFileSync(path.join(d.data, 'secrets_key'), `${opts.secretsKey}\n`, { mode: 0o600 });
  if (opts.migrated) {
    writeFileSync(legacyApprovalsMarker({ paths: { data: d.data } } as never), 'x\n');
  }
  made.push(d);
  return d;
}

function cli(d: Deployment, args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd: d.dir,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: d.dir,
        REDIS_URL: testRedisUrl(),
        STEWARD_REDIS_PREFIX: d.prefix,
        STEWARD_DATA_DIR: d.data,
        STEWARD_WORKSPACE: path.join(d.dir, 'workspace'),
        STEWARD_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('exit', (code) => resolve({ code: code ?? -1, out, err }));
  });
}

/** The signer of a deployment's approval key file. */
const signerOf = (d: Deployment) =>
  createApprovalSigner([
    Buffer.from(
      readFileSync(approvalKeyFile({ paths: { data: d.data } } as never), 'utf8').trim(),
      'base64',
    ),
  ]);

async function record(d: Deployment, name: string): Promise<ScriptRecord | null> {
  const redis = storeRedis(d.prefix);
  try {
    return await createScriptRepository(redis).get(name);
  } finally {
    redis.disconnect();
  }
}

describe('backups of older data', () => {
  const secretsKey = randomBytes(32).toString('base64');

  it('a backup of release 1 data restores its genuine approvals signed, on a machine migrated long ago', async () => {
    const c = deployment('legacy-c', { secretsKey, migrated: false });
    const redis = storeRedis(c.prefix);
    const store = createScriptRepository(redis);
    await store.commit(releaseOneApproval('old.star', 'def main():\n    return 1\n'));
    // Its text no longer matches what was approved: never signed.
    const broken = releaseOneApproval('broken.star', 'def main():\n    return 2\n');
    await store.commit({ ...broken, source: 'def main():\n    return 3\n' });
    redis.disconnect();

    const file = path.join(c.dir, 'v1.jsonl');
    const backup = await cli(c, ['backup', '--out', file]);
    expect(backup.code, backup.err).toBe(0);
    expect(backup.out).toMatch(/1 verified approval\(s\), schema version 1/);

    const d = deployment('legacy-d', { secretsKey, migrated: true });
    const restored = await cli(d, ['restore', file]);
    expect(restored.code, restored.err).toBe(0);
    expect(restored.out).toMatch(
      /1 approval\(s\) signed .*; data moved from schema version 1 to 2/,
    );
    expect(restored.out).toMatch(/approve them again\): broken\.star/);
    expect(signerOf(d).check((await record(d, 'old.star'))!)).toBeNull();
    expect((await record(d, 'broken.star'))!.approval_sig).toBeUndefined();
    const meta = storeRedis(d.prefix);
    expect((await createMetaRepository(meta).schemaVersion()).version).toBe(2);
    meta.disconnect();
  }, 60_000);

  it('an unsigned approval planted in migrated data is not signed by a restore on a fresh machine', async () => {
    const e = deployment('legacy-e', { secretsKey, migrated: true });
    // E runs schema 2 with its own approval key; a Redis writer then rolls the version back and
    // plants an unsigned approval, hoping a backup carries it somewhere it gets signed.
    const redis = storeRedis(e.prefix);
    mkdirSync(e.data, { recursive: true });
    const approvalKey = randomBytes(32);
    writeFileSync(
      approvalKeyFile({ paths: { data: e.data } } as never),
      approvalKey.toString('base64'),
      { mode: 0o600 },
    );
    const store = createScriptRepository(redis);
    const good = releaseOneApproval('good.star', 'def main():\n    return "good"\n');
    await store.commit({ ...good, approval_sig: createApprovalSigner([approvalKey]).sign(good) });
    await store.commit(releaseOneApproval('forged.star', 'def main():\n    return "evil"\n'));
    await redis.del(keys.schemaVersion());
    redis.disconnect();

    const file = path.join(e.dir, 'rolled-back.jsonl');
    const backup = await cli(e, ['backup', '--out', file]);
    expect(backup.code, backup.err).toBe(0);
    expect(backup.out).toMatch(/1 verified approval\(s\), schema version 1/);

    const f = deployment('legacy-f', { secretsKey, migrated: false });
    const restored = await cli(f, ['restore', file]);
    expect(restored.code, restored.err).toBe(0);
    expect(restored.out).toMatch(/approve them again\): forged\.star/);
    expect(signerOf(f).check((await record(f, 'good.star'))!)).toBeNull();
    const forged = (await record(f, 'forged.star'))!;
    expect(forged.approval_sig).toBeUndefined();
    expect(signerOf(f).check(forged)).toBe('missing_signature');
    expect(existsSync(legacyApprovalsMarker({ paths: { data: f.data } } as never))).toBe(true);
  }, 60_000);

  it('refuses data of a newer schema, naming both versions, and writes nothing', async () => {
    const g = deployment('legacy-g', { secretsKey, migrated: false });
    const header = {
      format: 'steward-backup',
      format_version: 1,
      schema_version: 3,
      data_written_by: '9.0.0',
      release: '9.0.0',
      taken_at: new Date().toISOString(),
      prefix: 'steward:',
      secrets_key: (await import('../../src/secrets/crypto.js')).keyFingerprint(
        Buffer.from(secretsKey, 'base64'),
      ),
      records: 0,
      audit: { entries: 0, head: '', anchor: '' },
    };
    const body = `${JSON.stringify(header)}\n${JSON.stringify({ approvals: [] })}\n`;
    const mac = backupMac(Buffer.from(secretsKey, 'base64')).update(body).digest('hex');
    const file = path.join(g.dir, 'future.jsonl');
    writeFileSync(file, `${body}${JSON.stringify({ hmac: mac })}\n`);
    const refused = await cli(g, ['restore', file]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/schema version 3 \(Steward 9\.0\.0\).*up to 2/);
    const redis = storeRedis('');
    expect(await redis.keys(`${g.prefix}*`)).toEqual([]);
    redis.disconnect();
  }, 60_000);
});
