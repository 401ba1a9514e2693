import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/store/embedded-redis.js';
import { startFakeModel } from '../support/fake-model.js';
import { isolatedEnv, mockProvider, opencodeBin } from '../support/opencode.js';
import { cliPath } from '../support/processes.js';
import { dropPrefix, testRedisUrl, uniquePrefix } from '../support/redis.js';
import { startTelegramStandIn } from '../support/telegram-stand-in.js';

/**
 * `steward start` as a newcomer runs it, with Telegram configured: the token is stored through
 * the API after start-up, the gateway picks it up, a message reaches the supervised OpenCode
 * (fake model), the reply arrives in the chat, and the model was offered `chat_send`.
 */
describe('steward start with Telegram', () => {
  const prefix = uniquePrefix('chat-start');
  const home = mkdtempSync(path.join(os.tmpdir(), 'steward-chat-start-'));
  afterAll(async () => {
    await dropPrefix(prefix);
    rmSync(home, { recursive: true, force: true });
  });

  it('talks to the assistant from Telegram once the token secret is stored', async () => {
    const fake = await startFakeModel();
    const api = await startTelegramStandIn();
    const configFile = path.join(home, 'steward.yaml');
    writeFileSync(
      configFile,
      JSON.stringify({
        engine: {
          command: [opencodeBin],
          config: {
            provider: mockProvider(fake.baseURL),
            model: 'mock/echo',
            small_model: 'mock/echo',
          },
          env: isolatedEnv(path.join(home, 'engine')),
        },
        chat: { telegram: { token_secret: 'TELEGRAM_TOKEN', allow: [501], api_root: api.apiRoot } },
      }),
    );
    const port = await freePort();
    const child = spawn(process.execPath, [cliPath, 'start'], {
      cwd: home,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        REDIS_URL: testRedisUrl(),
        STEWARD_REDIS_PREFIX: prefix,
        STEWARD_PORT: String(port),
        STEWARD_HOST: '127.0.0.1',
        STEWARD_LOG_LEVEL: 'warn',
        STEWARD_CONFIG: configFile,
        STEWARD_DATA_DIR: path.join(home, 'data'),
        STEWARD_WORKSPACE: path.join(home, 'workspace'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    const base = `http://127.0.0.1:${port}`;
    const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${base}${url}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    try {
      const until = Date.now() + 60_000;
      while (
        !(await fetch(`${base}/api/setup/status`).then(
          (r) => r.ok,
          () => false,
        ))
      ) {
        if (Date.now() > until) throw new Error(`steward start did not come up: ${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const admin = { username: 'admin', password: 'correct horse battery staple' };
      expect(
        (await post('/api/setup', { ...admin, confirm_password: admin.password })).status,
      ).toBe(200);
      const login = await post('/api/auth/login', admin);
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      const session = await fetch(`${base}/api/session`, { headers: { cookie } });
      const token = ((await session.json()) as { access_token: string }).access_token;
      const stored = await post(
        '/api/secrets/TELEGRAM_TOKEN',
        { value: api.token },
        { authorization: `Bearer ${token}` },
      );
      expect(stored.status).toBe(200);

      await api.waitFor(() => api.calls.some((c) => c.method === 'getUpdates'), 30_000);
      fake.setFallback({ kind: 'text', text: 'Hello from steward start.' });
      api.userWrites({ id: 501, first_name: 'Ada' }, 'hello?');
      await api
        .waitFor(() => api.chatTexts(501).at(-1) === 'Hello from steward start.', 90_000)
        .catch((err: Error) => {
          throw new Error(`${err.message}: ${out}`);
        });
      expect(fake.chatRequests().at(-1)?.tools).toContain('steward_chat_send');
      expect(out).not.toContain(api.token);
    } finally {
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      await api.close();
      await fake.close();
    }
  }, 180_000);
});
