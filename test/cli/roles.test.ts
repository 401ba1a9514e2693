import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { JWT_SECRET_FILE } from '../../src/auth/jwt-secret.js';
import { roleEnv, spawnRole } from '../support/processes.js';
import { dropPrefix, testRedisUrl, uniquePrefix } from '../support/redis.js';

describe('steward mcp role', () => {
  const prefix = uniquePrefix('mcp-role');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-mcp-role-'));
  afterAll(async () => {
    await dropPrefix(prefix);
    rmSync(dir, { recursive: true, force: true });
  });

  it('builds only the tool server (no JWT secret) and exits 0 when the engine closes stdin', async () => {
    const child = spawnRole('mcp', roleEnv(testRedisUrl(), prefix, dir));
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.stdin?.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'test', version: '1' },
        },
      })}\n`,
    );
    const deadline = Date.now() + 20_000;
    while (!stdout.includes('"id":1') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(JSON.parse(stdout.split('\n')[0] ?? '{}').result.serverInfo.name).toBe('steward');
    child.stdin?.end();
    expect(await exited).toBe(0);
    // The signing secret belongs to the API roles; the tool server never creates or reads it.
    expect(existsSync(path.join(dir, 'data', JWT_SECRET_FILE))).toBe(false);
  });
});
