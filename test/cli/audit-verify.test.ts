import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditLog } from '../../src/runtime/audit-log.js';
import { createAuditRepository } from '../../src/store/audit-repository.js';
import { keys } from '../../src/store/keys.js';
import type { Redis } from '../../src/store/redis.js';
import { cliPath, roleEnv } from '../support/processes.js';
import { dropPrefix, storeRedis, testRedisUrl, uniquePrefix } from '../support/redis.js';

const prefix = uniquePrefix('auditcli');
const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-audit-cli-'));
let redis: Redis;

beforeAll(() => {
  redis = storeRedis(prefix);
});
afterAll(async () => {
  redis.disconnect();
  await dropPrefix(prefix);
  rmSync(dir, { recursive: true, force: true });
});

function verify() {
  const res = spawnSync(process.execPath, [cliPath, 'audit', 'verify'], {
    cwd: dir,
    env: roleEnv(testRedisUrl(), prefix, dir),
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

describe('steward audit verify', () => {
  it('exits 0 on an intact chain and 1 naming the first entry after a removed one', async () => {
    const audit = createAuditLog({
      repo: createAuditRepository(redis),
      redact: (t) => t,
      log: pino({ level: 'silent' }),
    });
    for (let i = 0; i < 20; i++) {
      await audit.record({ actor: 'admin', channel: 'cli', action: 'test.entry', target: `t${i}` });
    }
    const ok = verify();
    expect(ok.stdout, ok.stderr).toMatch(/^audit log intact: 20 entries verified in \d+ ms\n$/);
    expect(ok.code).toBe(0);

    const ids = (await audit.list({ limit: 20 })).entries.map((e) => e.id).reverse();
    await redis.xdel(keys.auditLog(), ids[7]!);
    const broken = verify();
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain(
      `audit log broken at entry ${ids[8]} (8 read): the entry before it is missing or was altered`,
    );
  });
});
