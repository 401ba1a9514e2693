import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/store/embedded-redis.js';
import { offlineEngineEnv } from '../../src/engine/engine-env.js';

export const opencodeBin = path.resolve(import.meta.dirname, '../../node_modules/.bin/opencode');

export interface McpEntry {
  command: string[];
  environment?: Record<string, string>;
}

export interface TestEngineOptions {
  /** Base URL of the fake model (`…/v1`); registered as provider `mock` with models `echo` and `alt`. */
  modelURL: string;
  mcp?: Record<string, McpEntry>;
  password?: string;
  /** Merged over the generated configuration. */
  config?: Record<string, unknown>;
  /** Extra environment of the engine. */
  env?: Record<string, string>;
  /** Files written into the workspace before the engine starts (relative path → content). */
  files?: Record<string, string>;
}

export interface TestEngine {
  url: string;
  password?: string;
  /** The working directory of the engine (a temporary workspace). */
  workspace: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** The provider block tests point at the fake model. */
export function mockProvider(modelURL: string): Record<string, unknown> {
  const model = (name: string, context: number, output: number) => ({
    name,
    tool_call: true,
    limit: { context, output },
  });
  return {
    mock: {
      npm: '@ai-sdk/openai-compatible',
      name: 'Mock',
      options: { baseURL: modelURL, apiKey: 'x' },
      models: { echo: model('Echo', 200_000, 8_000), alt: model('Alt', 100_000, 4_000) },
    },
  };
}

/** Environment that keeps an engine on loopback with its own private directories. */
export function isolatedEnv(root: string): Record<string, string> {
  const dirs = {
    HOME: 'home',
    XDG_CONFIG_HOME: 'config',
    XDG_DATA_HOME: 'data',
    XDG_CACHE_HOME: 'cache',
    XDG_STATE_HOME: 'state',
  };
  const env: Record<string, string> = {};
  for (const [name, sub] of Object.entries(dirs)) {
    const dir = path.join(root, sub);
    mkdirSync(dir, { recursive: true });
    env[name] = dir;
  }
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    ...env,
    ...offlineEngineEnv,
    // It installs a plugin package in the background even with --pure: make that fail at once.
    npm_config_registry: 'http://127.0.0.1:9/',
    npm_config_fetch_retries: '0',
  };
}

/** Starts a real `opencode serve` on loopback against the fake model. */
export async function startTestEngine(options: TestEngineOptions): Promise<TestEngine> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'steward-engine-'));
  const workspace = path.join(root, 'workspace');
  mkdirSync(workspace, { recursive: true });
  for (const [rel, content] of Object.entries(options.files ?? {})) {
    const file = path.join(workspace, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  const port = await freePort();
  const config = {
    autoupdate: false,
    share: 'disabled',
    provider: mockProvider(options.modelURL),
    model: 'mock/echo',
    small_model: 'mock/echo',
    ...(options.mcp
      ? {
          mcp: Object.fromEntries(
            Object.entries(options.mcp).map(([name, entry]) => [
              name,
              { type: 'local', enabled: true, timeout: 10_000, ...entry },
            ]),
          ),
        }
      : {}),
    ...options.config,
  };
  const env = {
    ...isolatedEnv(root),
    ...options.env,
    OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
    ...(options.password ? { OPENCODE_SERVER_PASSWORD: options.password } : {}),
  };
  const child = spawn(
    opencodeBin,
    ['serve', '--hostname', '127.0.0.1', '--port', String(port), '--pure'],
    {
      cwd: workspace,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const keep = (b: Buffer) => void (output = (output + b.toString('utf8')).slice(-4000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);

  // If the test worker dies first, a detached engine would outlive it.
  const killOnExit = () => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {}
  };
  process.once('exit', killOnExit);

  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    process.off('exit', killOnExit);
    await killGroup(child);
    rmSync(root, { recursive: true, force: true });
  };
  try {
    await waitForHealth(url, options.password, child, 45_000);
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}\n--- opencode output ---\n${output}`);
  }
  return {
    url,
    ...(options.password ? { password: options.password } : {}),
    workspace,
    child,
    stop,
  };
}

export function basicAuth(password: string | undefined): Record<string, string> {
  return password
    ? { authorization: `Basic ${Buffer.from(`opencode:${password}`).toString('base64')}` }
    : {};
}

async function waitForHealth(
  url: string,
  password: string | undefined,
  child: ChildProcess,
  timeoutMs: number,
) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`opencode exited with ${child.exitCode}`);
    try {
      // A request that connects while the server is still booting can hang: bound each attempt.
      const res = await fetch(`${url}/global/health`, {
        headers: basicAuth(password),
        signal: AbortSignal.timeout(1000),
      });
      if (res.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`opencode did not answer within ${timeoutMs} ms`);
}

/** Kills the whole process group: opencode runs MCP servers and helpers as children. */
export async function killGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {}
  const timer = setTimeout(() => {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {}
  }, 3000);
  await exited;
  clearTimeout(timer);
}
