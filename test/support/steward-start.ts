import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { freePort } from '../../src/store/embedded-redis.js';
import { TEST_ADMIN } from './auth.js';
import { cliPath } from './processes.js';
import { dropPrefix, testRedisUrl, uniquePrefix } from './redis.js';

export interface Answer {
  status: number;
  type: string;
  text: string;
}

export interface RunningSteward {
  base: string;
  /** A bearer token of the administrator (setup done, logged in). */
  token: string;
  /** One request; `body` is sent as it is (a string) or as JSON. */
  call(
    method: string,
    url: string,
    init?: { body?: unknown; headers?: Record<string, string>; auth?: boolean },
  ): Promise<Answer>;
  /** What the process printed (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * `steward start` as its own process, on a Redis prefix, data directory and port of its own,
 * with no engine. It runs under a small shell that kills it (SIGKILL) as soon as the test's end
 * of its stdin closes, so it dies with the test process however that ends, SIGKILL included.
 */
export async function startSteward(
  label: string,
  config: Record<string, unknown> = {},
): Promise<RunningSteward> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `steward-${label}-`));
  const prefix = uniquePrefix(label);
  const port = await freePort();
  const configFile = path.join(dir, 'steward.yaml');
  writeFileSync(configFile, stringify(config));
  // A background job's stdin is /dev/null in sh: the pipe is read through fd 3.
  const tether =
    'exec 3<&0; "$@" </dev/null 3<&- & child=$!; (read _ <&3; kill -9 $child 2>/dev/null) & wait $child';
  const child: ChildProcess = spawn(
    'sh',
    ['-c', tether, 'sh', process.execPath, cliPath, 'start'],
    {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        REDIS_URL: testRedisUrl(),
        STEWARD_REDIS_PREFIX: prefix,
        STEWARD_PORT: String(port),
        STEWARD_HOST: '127.0.0.1',
        STEWARD_DATA_DIR: path.join(dir, 'data'),
        STEWARD_WORKSPACE: path.join(dir, 'workspace'),
        STEWARD_ENGINE_AUTOSTART: 'false',
        STEWARD_CONFIG: configFile,
        STEWARD_LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let printed = '';
  const keep = (chunk: Buffer) => {
    printed = (printed + chunk.toString()).slice(-200_000);
    if (process.env.TEST_LOG_LEVEL) process.stderr.write(chunk);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  let token = '';

  const call: RunningSteward['call'] = async (method, url, init = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.auth !== false && token) headers.authorization ??= `Bearer ${token}`;
    let body: string | undefined;
    if (init.body !== undefined) {
      body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${base}${url}`, {
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
    });
    return {
      status: res.status,
      type: res.headers.get('content-type') ?? '',
      text: await res.text(),
    };
  };

  const stop = async () => {
    child.stdin?.end();
    await exited;
    await dropPrefix(prefix);
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const until = Date.now() + 60_000;
    for (;;) {
      const health = await fetch(`${base}/health`).then(
        (r) => r.json() as Promise<{ reason?: string }>,
        () => null,
      );
      if (health?.reason === 'setup_required') break;
      if (child.exitCode !== null || Date.now() > until) {
        throw new Error(`steward start did not come up:\n${printed.slice(-4000)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const setup = await call('POST', '/api/setup', {
      body: { ...TEST_ADMIN, confirm_password: TEST_ADMIN.password },
    });
    if (setup.status !== 200) throw new Error(`setup: ${setup.status} ${setup.text}`);
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(TEST_ADMIN),
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const session = await fetch(`${base}/api/session`, { headers: { cookie } });
    if (!session.ok) throw new Error(`session: ${session.status} ${await session.text()}`);
    token = ((await session.json()) as { access_token: string }).access_token;
  } catch (err) {
    await stop();
    throw err;
  }
  return { base, token, call, output: () => printed, stop };
}
