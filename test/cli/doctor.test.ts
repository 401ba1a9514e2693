import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { examine, formatFindings, type DoctorInput } from '../../src/cli/doctor.js';
import { loadConfig } from '../../src/config/load.js';
import type { Redis } from '../../src/store/redis.js';
import { cliPath } from '../support/processes.js';

/** A Redis that answers CONFIG GET as one with AOF on: the durability check passes. */
const durableRedis = {
  config: async (_op: string, key: string) => [key, key === 'appendonly' ? 'yes' : ''],
} as unknown as Redis;

function deployment(overrides: Record<string, unknown> = {}, env: Record<string, string> = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-doctor-'));
  const config = loadConfig({
    cwd: dir,
    env: {},
    overrides: { 'server.host': '127.0.0.1', ...overrides },
  });
  mkdirSync(config.paths.data, { recursive: true, mode: 0o700 });
  chmodSync(config.paths.data, 0o700);
  const input: DoctorInput = {
    config,
    env,
    store: { redis: durableRedis, admins: { exists: async () => true } },
  };
  return { dir, config, input };
}

describe('steward doctor', () => {
  it('finds nothing in a locked-down deployment', async () => {
    const { input } = deployment();
    expect(await examine(input)).toEqual([]);
    expect(formatFindings([])).toBe('steward doctor: no findings\n');
  });

  it('names each problem with its fix', async () => {
    const { config, input } = deployment(
      {
        'server.host': '0.0.0.0',
        'mcp.http.token': 'x'.repeat(20),
        'egress.allow': ['10.0.0.0/8', '192.168.1.0/24', 'api.example.com'],
      },
      { STEWARD_SECRETS_KEY: 'k' },
    );
    chmodSync(config.paths.data, 0o755);
    writeFileSync(path.join(config.paths.data, 'secrets_key'), 'k', { mode: 0o644 });
    input.store = { redis: durableRedis, admins: { exists: async () => false } };
    const findings = await examine(input);
    expect(findings.map((f) => f.check)).toEqual([
      'exposure',
      'setup',
      'file modes',
      'file modes',
      'secrets in the environment',
      'mcp token',
      'egress',
    ]);
    expect(findings[0]?.fix).toMatch(/server\.trust_proxy|127\.0\.0\.1/);
    expect(findings[2]?.fix).toBe(`chmod 700 ${config.paths.data}`);
    expect(findings[3]?.fix).toBe(`chmod 600 ${path.join(config.paths.data, 'secrets_key')}`);
    expect(findings[6]?.problem).toContain('"10.0.0.0/8"');
    expect(formatFindings(findings)).toMatch(/^steward doctor: 7 finding\(s\)\n1\. \[exposure\]/);
  });

  it("includes the configuration's reach (test/cli/doctor-reach.test.ts has the cases)", async () => {
    const { input } = deployment({ 'scripts.secret_egress': 'any' });
    expect((await examine(input)).map((f) => f.check)).toEqual(['secret egress']);
  });

  it('flags scripts.secret_values: plain, where scripts read secret values', async () => {
    const { input } = deployment({ 'scripts.secret_values': 'plain' });
    const findings = await examine(input);
    expect(findings.map((f) => f.check)).toEqual(['secret values']);
    expect(findings[0]?.fix).toMatch(/scripts\.secret_values: opaque/);
    expect(await examine(deployment({ 'scripts.secret_values': 'opaque' }).input)).toEqual([]);
  });

  it('reports a Redis without AOF, and one that does not answer', async () => {
    const { input } = deployment();
    const volatile = { config: async (_op: string, key: string) => [key, ''] } as unknown as Redis;
    input.store = { redis: volatile, admins: { exists: async () => true } };
    expect((await examine(input)).map((f) => f.check)).toEqual(['redis']);
    delete input.store;
    expect((await examine(input))[0]?.problem).toMatch(/Redis does not answer/);
  });

  it('exits 1 and prints the findings as a command', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-doctor-cli-'));
    writeFileSync(
      path.join(dir, 'docker-compose.yml'),
      'services:\n  engine:\n    environment:\n      STEWARD_SECRETS_KEY: k\n',
    );
    const result = spawnSync(process.execPath, [cliPath, 'doctor'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir, REDIS_URL: 'redis://127.0.0.1:1' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/\[exposure\]/);
    expect(result.stdout).toMatch(/\[compose engine\]/);
  });
});
