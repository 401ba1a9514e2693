import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/store/embedded-redis.js';
import { isolatedEnv } from '../support/opencode.js';
import { dropPrefix, testRedisUrl, uniquePrefix } from '../support/redis.js';

const cli = path.resolve(__dirname, '../../dist/cli/main.js');

function startSteward(env: Record<string, string>, cwd: string): ChildProcess {
  return spawn(process.execPath, [cli, 'start'], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function waitFor<T>(
  fn: () => Promise<T | undefined>,
  timeoutMs: number,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

describe('steward start', () => {
  const prefix = uniquePrefix('cli');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-cli-'));
  afterAll(async () => {
    await dropPrefix(prefix);
    rmSync(dir, { recursive: true, force: true });
  });

  // Start-up time is measured by bench/startup.mjs; here only the behaviour is checked.
  it('serves health, reports setup, and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const child = startSteward(
      {
        REDIS_URL: testRedisUrl(),
        STEWARD_REDIS_PREFIX: prefix,
        STEWARD_PORT: String(port),
        STEWARD_HOST: '127.0.0.1',
        STEWARD_LOG_LEVEL: 'warn',
        STEWARD_ENGINE_AUTOSTART: 'false',
      },
      dir,
    );
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const output = () => out;
    const base = `http://127.0.0.1:${port}`;
    const body = await waitFor(async () => {
      const res = await fetch(`${base}/healthz`);
      return res.ok ? res.text() : undefined;
    }, 60_000);
    expect(body).toBe('OK');
    // /healthz answers from the first moments; the app takes over once built.
    await waitFor(async () => {
      const res = await fetch(`${base}/health`);
      return ((await res.json()) as { reason?: string }).reason !== 'starting' || undefined;
    }, 60_000);

    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(503);
    expect(((await health.json()) as { reason: string }).reason).toBe('setup_required');
    const ready = await fetch(`${base}/ready`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { reason: string }).reason).toBe('admin_setup');
    // The one-time setup token is printed and kept for setup from another machine.
    const tokenFile = path.join(dir, 'data', 'setup_token');
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const token = readFileSync(tokenFile, 'utf8').trim();
    expect(token.length).toBeGreaterThanOrEqual(32);
    expect(output()).toContain(`X-Setup-Token: ${token}`);

    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    // The process gives itself 9 s before forcing an exit with status 1.
    expect(await exited).toBe(0);
  });

  it('with no engine configured, supervises the installed OpenCode and says how to give it a model', async () => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'steward-autostart-'));
    const { PATH: _path, ...engineEnv } = isolatedEnv(home);
    const configFile = path.join(home, 'steward.yaml');
    // JSON is YAML; the engine's own environment keeps it offline (see test/support/opencode.ts).
    writeFileSync(configFile, JSON.stringify({ engine: { env: engineEnv } }));
    const port = await freePort();
    const child = startSteward(
      {
        REDIS_URL: testRedisUrl(),
        STEWARD_REDIS_PREFIX: `${prefix}auto:`,
        STEWARD_PORT: String(port),
        STEWARD_HOST: '127.0.0.1',
        STEWARD_LOG_LEVEL: 'info',
        STEWARD_CONFIG: configFile,
        STEWARD_DATA_DIR: path.join(home, 'data'),
        STEWARD_WORKSPACE: path.join(home, 'workspace'),
      },
      home,
    );
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      const base = `http://127.0.0.1:${port}`;
      const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
        fetch(`${base}${url}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        });
      await waitFor(
        async () => ((await fetch(`${base}/api/setup/status`)).ok ? true : undefined),
        60_000,
      );
      const admin = { username: 'admin', password: 'correct horse battery staple' };
      expect(
        (await post('/api/setup', { ...admin, confirm_password: admin.password })).status,
      ).toBe(200);
      const login = await post('/api/auth/login', admin);
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      const session = await fetch(`${base}/api/session`, { headers: { cookie } });
      const token = ((await session.json()) as { access_token: string }).access_token;
      const auth = { authorization: `Bearer ${token}` };
      // Every request counts against the admin's 60 a minute, the 503s of an engine still
      // starting too: polled every 1.5 s, a slow start (30 s and more on a loaded machine)
      // leaves room for the requests after it.
      const created = await waitFor(
        async () => {
          const res = await post('/api/sessions', {}, auth);
          return res.status === 200 ? ((await res.json()) as { id: string }) : undefined;
        },
        90_000,
        1_500,
      );
      expect(created.id).toMatch(/^ses_/);
      expect(out).toMatch(/no model is configured; set engine\.config\.model/);
      // The models list is cached after the first call.
      const first = await fetch(`${base}/api/models`, { headers: auth });
      expect(first.status).toBe(200);
      const started = Date.now();
      expect((await fetch(`${base}/api/models`, { headers: auth })).status).toBe(200);
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      rmSync(home, { recursive: true, force: true });
    }
  }, 150_000);

  it('stops with a message naming the key when STEWARD_PORT is not a number', () => {
    const result = spawnSync(process.execPath, [cli, 'start'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', STEWARD_PORT: 'abc', REDIS_URL: testRedisUrl() },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/server\.port \(from STEWARD_PORT\)/);
  });

  it('answers --help for every role', () => {
    for (const role of ['start', 'api', 'worker', 'mcp', 'version']) {
      const result = spawnSync(process.execPath, [cli, role, '--help'], { encoding: 'utf8' });
      expect(result.status, role).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`Usage: steward ${role}`));
    }
  });
});
