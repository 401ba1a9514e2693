import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { createEngineClient } from '../../src/engine/client.js';
import { createEventHub, type ChatEvent, type EventHub } from '../../src/engine/event-hub.js';
import { createEngineSupervisor, type EngineSupervisor } from '../../src/engine/supervisor.js';
import { startFakeModel, type FakeModel } from '../support/fake-model.js';
import { isolatedEnv, mockProvider, opencodeBin } from '../support/opencode.js';

const log = pino({ level: 'silent' });

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('engine supervisor', () => {
  let fake: FakeModel;
  let supervisor: EngineSupervisor;
  let hub: EventHub | undefined;
  let root: string;

  beforeAll(async () => {
    fake = await startFakeModel();
    root = mkdtempSync(path.join(os.tmpdir(), 'steward-supervisor-'));
    const config = loadConfig({
      cwd: root,
      overrides: {
        'engine.command': [opencodeBin],
        'engine.config': {
          provider: mockProvider(fake.baseURL),
          model: 'mock/echo',
          small_model: 'mock/echo',
        },
        'engine.env': { npm_config_registry: 'http://127.0.0.1:9/', npm_config_fetch_retries: '0' },
        'engine.start_timeout': 45_000,
      },
    });
    const { PATH, HOME, XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_CACHE_HOME, XDG_STATE_HOME } =
      isolatedEnv(root);
    supervisor = createEngineSupervisor({
      config,
      log,
      // The real `steward mcp` is wired later; any command that exits keeps the engine happy.
      tools: { transport: 'stdio', env: {}, command: [process.execPath, '-e', 'process.exit(0)'] },
      baseEnv: {
        PATH,
        HOME,
        XDG_CONFIG_HOME,
        XDG_DATA_HOME,
        XDG_CACHE_HOME,
        XDG_STATE_HOME,
        REDIS_URL: 'redis://secret',
      },
      backoff: { initialMs: 200, maxMs: 1000 },
      stopGraceMs: 2000,
    });
    expect(supervisor.status()).toBe('stopped');
  });

  afterAll(async () => {
    await hub?.stop();
    await supervisor?.stop();
    await fake?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('starts an engine on loopback that only answers with its password', async () => {
    const { url, password } = await supervisor.start();
    expect(supervisor.status()).toBe('running');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(password.length).toBeGreaterThanOrEqual(24);
    expect((await fetch(`${url}/global/health`)).status).toBe(401);

    const client = createEngineClient({ url, password, log, requestTimeoutMs: 10_000 });
    expect((await client.health()).healthy).toBe(true);
    const session = await client.createSession({ title: 'supervised' });
    // Outside the workspace: OpenCode runs plugins and project config from its directory.
    expect(session.directory).toBe(path.join(root, 'data', 'engine'));

    const wrong = createEngineClient({ url, password: 'nope', log, requestTimeoutMs: 5000 });
    await expect(wrong.health()).rejects.toMatchObject({ code: 'engine_unavailable' });

    // Only the allow-listed part of Steward's environment reaches the engine.
    const environ = readFileSync(`/proc/${supervisor.pid()}/environ`, 'utf8').split('\0');
    expect(environ.some((v) => v.startsWith('REDIS_URL='))).toBe(false);
    expect(environ).toContain('OPENCODE_DISABLE_MODELS_FETCH=1');
    expect(environ).toContain('OPENCODE_DISABLE_PROJECT_CONFIG=1');
    expect(environ).toContain(`OPENCODE_SERVER_PASSWORD=${password}`);

    hub = createEventHub({ client, log, backoff: { initialMs: 100, maxMs: 500 } });
    await hub.whenConnected(20_000);
  }, 90_000);

  it('restarts the engine on the same address after it dies', async () => {
    const before = supervisor.pid();
    expect(before).toBeDefined();
    process.kill(before as number, 'SIGKILL');
    await until(() => supervisor.status() === 'restarting', 5000, 'restarting');
    await until(() => supervisor.status() === 'running', 60_000, 'running again');
    expect(supervisor.pid()).not.toBe(before);
    const client = createEngineClient({
      url: supervisor.url,
      password: supervisor.password,
      log,
      requestTimeoutMs: 10_000,
    });
    expect((await client.health()).healthy).toBe(true);
    // Sessions live in the engine's database under its data home, so they survive a restart.
    const sessions = await client.listSessions();
    expect(sessions.map((s) => s.title)).toContain('supervised');

    // The shared event stream found the new engine by itself.
    await until(() => hub?.connected() === true, 30_000, 'event stream back');
    const session = sessions.find((s) => s.title === 'supervised');
    fake.enqueue({ kind: 'text', text: 'back again', chunks: 2 });
    const events = new Promise<ChatEvent[]>((resolve) => {
      const got: ChatEvent[] = [];
      const off = hub?.subscribe(session?.id as string, (e) => {
        got.push(e);
        if (e.type === 'done') {
          off?.();
          resolve(got);
        }
      });
    });
    await client.promptAsync(session?.id as string, 'are you there?');
    const got = await events;
    expect(got.flatMap((e) => (e.type === 'text' ? [e.content] : [])).join('')).toBe('back again');
  }, 90_000);

  it('stops the engine; calls then fail with engine_unavailable', async () => {
    const pid = supervisor.pid() as number;
    await supervisor.stop();
    expect(supervisor.status()).toBe('stopped');
    expect(alive(pid)).toBe(false);
    const client = createEngineClient({
      url: supervisor.url,
      password: supervisor.password,
      log,
      requestTimeoutMs: 2000,
    });
    await expect(client.listSessions()).rejects.toMatchObject({
      code: 'engine_unavailable',
      status: 503,
      message: expect.stringMatching(/^AI engine is not reachable: /),
    });
  });
});

describe('engine supervisor with an engine that never answers', () => {
  it('rejects start after engine.start_timeout, keeps retrying, and stops cleanly', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'steward-supervisor-'));
    const config = loadConfig({
      cwd: root,
      overrides: {
        // Accepts the serve arguments and never listens.
        'engine.command': [process.execPath, '-e', 'setInterval(() => {}, 1000)'],
        'engine.start_timeout': 500,
      },
    });
    const supervisor = createEngineSupervisor({
      config,
      log,
      tools: { transport: 'stdio', env: {} },
      baseEnv: { PATH: process.env.PATH },
      backoff: { initialMs: 100, maxMs: 200 },
      stopGraceMs: 500,
    });
    try {
      await expect(supervisor.start()).rejects.toMatchObject({
        code: 'engine_unavailable',
        message: 'AI engine did not start within 500 ms',
      });
      await until(() => supervisor.status() === 'restarting', 3000, 'restarting');
      const first = supervisor.pid();
      await until(
        () => supervisor.pid() !== undefined && supervisor.pid() !== first,
        5000,
        'a new attempt',
      );
    } finally {
      await supervisor.stop();
      rmSync(root, { recursive: true, force: true });
    }
    expect(supervisor.status()).toBe('stopped');
    expect(supervisor.pid()).toBeUndefined();
  });
});
