import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import jwt from 'jsonwebtoken';
import { afterAll, describe, expect, it } from 'vitest';
import { JWT_SECRET_FILE } from '../../src/auth/jwt-secret.js';
import { createAuthModule } from '../../src/auth/module.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log/logger.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';
import { memoryTrail } from '../support/trail.js';

const prefix = uniquePrefix('auth-module');
const redis = storeRedis(prefix);
const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-auth-module-'));
const log = createLogger('silent');
afterAll(async () => {
  redis.disconnect();
  await dropPrefix(prefix);
  rmSync(dir, { recursive: true, force: true });
});

const config = (overrides: Record<string, unknown>) =>
  loadConfig({ cwd: dir, env: {}, overrides: { data_dir: 'data', ...overrides } });

describe('auth module', () => {
  it('builds from the config: issuer, token lifetimes and rate limits', async () => {
    const auth = await createAuthModule({
      trail: memoryTrail(),
      config: config({
        'admin.jwt.issuer': 'my-steward',
        'admin.jwt.access_expiry': '5m',
        'admin.rate_limit.login_per_minute': 3,
        'admin.rate_limit.api_per_minute': 30,
      }),
      redis,
      log,
    });
    expect(auth.issuer).toBe('my-steward');
    expect(auth.tokens.issuer).toBe('my-steward');
    expect(auth.tokens.accessTtlMs).toBe(5 * 60_000);
    expect(auth.limits.login.limit).toBe(3);
    expect(auth.limits.api.limit).toBe(30);
    // Tokens are signed with the module's secret.
    const { token } = auth.tokens.signAccess({ username: 'admin', role: 'admin', sid: 's' });
    expect(jwt.verify(token, auth.secret, { algorithms: ['HS256'] })).toMatchObject({
      iss: 'my-steward',
    });
  });

  it('creates the signing secret in the data dir, or uses the configured one', async () => {
    const generated = await createAuthModule({
      trail: memoryTrail(),
      config: config({}),
      redis,
      log,
    });
    const file = path.join(dir, 'data', JWT_SECRET_FILE);
    expect(readFileSync(file, 'utf8').trim()).toBe(generated.secret);

    const configured = 'k'.repeat(40);
    const other = path.join(dir, 'other');
    const auth = await createAuthModule({
      trail: memoryTrail(),
      config: config({ data_dir: 'other', 'admin.jwt.secret': configured }),
      redis,
      log,
    });
    expect(auth.secret).toBe(configured);
    expect(existsSync(path.join(other, JWT_SECRET_FILE))).toBe(false);
  });

  it('keeps the login limit apart from the API limit', async () => {
    const auth = await createAuthModule({
      trail: memoryTrail(),
      config: config({ 'admin.rate_limit.login_per_minute': 1 }),
      redis,
      log,
    });
    expect((await auth.limits.login.consume('ip:7')).allowed).toBe(true);
    expect((await auth.limits.login.consume('ip:7')).allowed).toBe(false);
    expect((await auth.limits.api.consume('ip:7')).allowed).toBe(true);
  });

  it('gives every process on the store the same admin account', async () => {
    const a = await createAuthModule({
      trail: memoryTrail(),
      config: config({}),
      redis,
      log,
    });
    const b = await createAuthModule({
      trail: memoryTrail(),
      config: config({}),
      redis,
      log,
    });
    expect(await b.service.setupRequired()).toBe(true);
    const password = 'correct horse battery staple';
    await a.service.setup(
      { username: 'admin', password, confirm_password: password },
      { ip: '127.0.0.1' },
    );
    expect(await b.service.setupRequired()).toBe(false);
    await expect(b.service.login('admin', password, { ip: '127.0.0.1' })).resolves.toBeTruthy();
  });
});
