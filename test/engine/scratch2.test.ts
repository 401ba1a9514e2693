import { test } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isolatedEnv, opencodeBin } from '../support/opencode.js';
test('s2', async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'x-'));
  const env = { ...isolatedEnv(root), OPENCODE_CONFIG_CONTENT: '{}' };
  process.stderr.write(JSON.stringify(env) + '\n');
  const child = spawn(opencodeBin, ['serve', '--hostname', '127.0.0.1', '--port', '45200', '--pure'], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (b) => process.stderr.write('OUT ' + b));
  child.stderr.on('data', (b) => process.stderr.write('ERR ' + b));
  child.on('exit', (c, s) => process.stderr.write(`exit ${c} ${s}\n`));
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 500));
    try { const r = await fetch('http://127.0.0.1:45200/global/health'); process.stderr.write(`${i} ${r.status}\n`); break; } catch (e) { process.stderr.write(`${i} ${(e as Error).message} ${String((e as any).cause)}\n`); }
  }
  process.kill(-child.pid!, 'SIGTERM');
}, 20000);
