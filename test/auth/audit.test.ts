import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import { loadConfig } from '../../src/config/load.js';
import { redactPaths } from '../../src/log/logger.js';
import { createContext, type Context } from '../../src/runtime/context.js';
import { buildAppDeps, buildCore, buildServerParts } from '../../src/cli/compose.js';
import { dropPrefix, testRedisUrl, uniquePrefix } from '../support/redis.js';

const password = 'a perfectly long password';
const lines: string[] = [];
let ctx: Context;
let app: FastifyInstance;
let prefix: string;
let dir: string;

beforeAll(async () => {
  prefix = uniquePrefix('audit');
  dir = mkdtempSync(path.join(os.tmpdir(), 'steward-audit-'));
  const config = loadConfig({
    cwd: dir,
    env: {},
    overrides: {
      'redis.url': testRedisUrl(),
      'redis.prefix': prefix,
      data_dir: path.join(dir, 'data'),
      workspace: path.join(dir, 'workspace'),
      'admin.jwt.refresh_grace': 0,
    },
  });
  // The production logger's options, writing to memory so the lines can be read back.
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const log = pino({ level: 'info', redact: { paths: redactPaths, censor: '[hidden]' } }, sink);
  ctx = await createContext(config, log, testRedisUrl());
  const core = await buildCore(ctx);
  const parts = await buildServerParts(ctx, core, { superviseEngine: false });
  app = await buildApp(await buildAppDeps(ctx, core, parts));
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await ctx.close();
  await dropPrefix(prefix);
  rmSync(dir, { recursive: true, force: true });
});

it('writes one audit line per security event and no secret anywhere', async () => {
  const inject = app.inject.bind(app);
  await inject({
    method: 'POST',
    url: '/api/setup',
    payload: { username: 'admin', password, confirm_password: password },
  });
  await inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { username: 'admin', password: 'wrong wrong wrong wrong' },
  });
  const login = await inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { username: 'admin', password },
  });
  const r0 = login.cookies.find((c) => c.name === 'refresh')!.value;
  const first = await inject({ method: 'GET', url: '/api/session', cookies: { refresh: r0 } });
  const r1 = first.cookies.find((c) => c.name === 'refresh')!.value;
  const access = first.json().access_token as string;
  // Grace is 0 here: presenting r0 again is reuse and revokes the session.
  const reuse = await inject({ method: 'GET', url: '/api/session', cookies: { refresh: r0 } });
  expect(reuse.statusCode).toBe(401);
  await inject({
    method: 'POST',
    url: '/api/auth/logout',
    headers: { authorization: `Bearer ${access}` },
  });

  const events = lines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.audit === true)
    .map((l) => l.event);
  expect(events).toEqual([
    'setup.completed',
    'auth.login.failed',
    'auth.login.succeeded',
    'auth.refresh.reused',
    'auth.logout',
  ]);
  const all = lines.join('\n');
  for (const secret of [password, 'wrong wrong', r0, r1, access, '$argon2id$']) {
    expect(all).not.toContain(secret);
  }
});
