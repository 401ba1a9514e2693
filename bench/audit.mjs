// The audit log: appending (batched per event-loop turn, and one entry at a time) and verifying a
// chain of 10,000 entries with `steward audit verify`, the real command in its own process.
// Baseline: a Redis XRANGE of the same entries (the reads alone), so the hashing and checking
// that verification adds stands out from the machine's speed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { createAuditLog } from '../dist/runtime/audit-log.js';
import { createAuditRepository } from '../dist/store/audit-repository.js';
import { keys } from '../dist/store/keys.js';
import { createRedis } from '../dist/store/redis.js';
import { startRedis } from './lib.mjs';

const N = Number(process.env.AUDIT_ENTRIES ?? 10_000);
const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-bench-audit-'));
const redisServer = await startRedis(dir);
const prefix = 'bench:';
const redis = createRedis({ url: redisServer.url, prefix }, 'store');
const audit = createAuditLog({
  repo: createAuditRepository(redis),
  redact: (t) => t,
  log: pino({ level: 'silent' }),
});
const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

try {
  let t0 = performance.now();
  await Promise.all(
    Array.from({ length: N }, (_, i) =>
      audit.record({
        actor: 'ai',
        channel: 'mcp',
        action: 'tool.script_run',
        target: `s${i % 50}`,
        details: { args: `{"name":"s${i % 50}","args":[${i}]}` },
      }),
    ),
  );
  const batched = performance.now() - t0;
  t0 = performance.now();
  for (let i = 0; i < 1000; i++) {
    await audit.record({ actor: 'admin', channel: 'api', action: 'secret.set', target: 'K' });
  }
  const single = (performance.now() - t0) / 1000;

  const verify = () => {
    const res = spawnSync(process.execPath, [cli, 'audit', 'verify'], {
      env: {
        PATH: process.env.PATH,
        REDIS_URL: redisServer.url,
        STEWARD_REDIS_PREFIX: prefix,
        STEWARD_DATA_DIR: path.join(dir, 'data'),
        STEWARD_LOG_LEVEL: 'warn',
      },
      encoding: 'utf8',
    });
    if (res.status !== 0) throw new Error(`audit verify failed: ${res.stdout}${res.stderr}`);
    return Number(/verified in (\d+) ms/.exec(res.stdout)?.[1]);
  };
  const reads = async () => {
    const start = performance.now();
    let after = '-';
    for (;;) {
      const page = await redis.xrange(
        keys.auditLog(),
        after === '-' ? '-' : `(${after}`,
        '+',
        'COUNT',
        1000,
      );
      if (page.length === 0) break;
      after = page.at(-1)[0];
    }
    return performance.now() - start;
  };
  const verifyMs = [];
  const readMs = [];
  for (let i = 0; i < 3; i++) {
    verifyMs.push(verify());
    readMs.push(await reads());
  }
  const best = (xs) => Math.min(...xs);
  console.log(
    `audit log, ${N + 1000} entries, node ${process.version}, load ${os.loadavg()[0].toFixed(1)}`,
  );
  console.log(
    `append ${N} recorded at once: ${batched.toFixed(0)} ms (${((batched * 1000) / N).toFixed(0)} us each)`,
  );
  console.log(`append one at a time: ${(single * 1000).toFixed(0)} us each`);
  console.log(
    `steward audit verify: best ${best(verifyMs)} ms (runs ${verifyMs.join(', ')}); reading the entries alone: ${best(readMs).toFixed(0)} ms; verify / reads = ${(best(verifyMs) / best(readMs)).toFixed(1)}x`,
  );
} finally {
  redis.disconnect();
  redisServer.stop();
  rmSync(dir, { recursive: true, force: true });
}
