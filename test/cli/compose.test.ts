import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JWT_SECRET_FILE } from '../../src/auth/jwt-secret.js';
import {
  buildAppDeps,
  buildCore,
  buildServerParts,
  scriptWorkerDeps,
  toolsetDeps,
  type Core,
  type ServerParts,
} from '../../src/cli/compose.js';
import type { AppDeps } from '../../src/api/app.js';
import { createTestContext, type TestContext } from '../support/app.js';

const SECRET_VALUE = 'tok-0123456789abcdefghij';

describe('composition root', () => {
  let t: TestContext;
  let core: Core;
  let parts: ServerParts | undefined;
  let deps: AppDeps;

  beforeAll(async () => {
    t = await createTestContext({}, 'compose');
    core = await buildCore(t.ctx);
  });
  afterAll(async () => {
    await parts?.engine.stop();
    await t.close();
  });

  it('builds the core without the JWT secret (the mcp role never needs it)', () => {
    expect(existsSync(path.join(t.ctx.config.paths.data, JWT_SECRET_FILE))).toBe(false);
  });

  it("redacts a secret's value as soon as it is set", async () => {
    await core.secrets.set('API_TOKEN', SECRET_VALUE);
    await expect
      .poll(() => core.redact(`value=${SECRET_VALUE}`))
      .toBe('value=[REDACTED:API_TOKEN]');
  });

  it('hands the tools and the script worker the same core pieces', async () => {
    const tools = toolsetDeps(core);
    expect(tools.egress).toBe(core.egress);
    expect(tools.scripts).toEqual({ scripts: core.scripts, runner: core.scriptRunner });
    expect(tools.redact(SECRET_VALUE)).toBe('[REDACTED:API_TOKEN]');

    const worker = scriptWorkerDeps(core);
    expect(worker.store).toBe(core.scripts.store);
    expect(worker.egress).toBe(core.egress);
    expect(await worker.getSecret('API_TOKEN')).toBe(SECRET_VALUE);
    expect(await worker.getSecret('UNSET')).toBeNull();
    expect(worker.redact(`x ${SECRET_VALUE}`)).toBe('x [REDACTED:API_TOKEN]');
  });

  it('builds the app deps: auth with its secret file, setup state and metrics', async () => {
    parts = await buildServerParts(t.ctx, core, { superviseEngine: false });
    deps = await buildAppDeps(t.ctx, core, parts);
    expect(existsSync(path.join(t.ctx.config.paths.data, JWT_SECRET_FILE))).toBe(true);
    expect(deps.auth.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(await deps.setupComplete()).toBe(false);
    expect(deps.metrics.threads()).toBeGreaterThanOrEqual(1);
    expect(await deps.metrics.scripts()).toEqual({
      total: 0,
      approved: 0,
      pending: 0,
      rejected: 0,
    });
  });

  it('counts secrets that scripts declare, set or not', async () => {
    await core.scripts.create(
      'needs.star',
      '# @secrets: API_TOKEN, OTHER_KEY\ndef main():\n    return {}\n',
      'admin',
    );
    expect((await deps.declaredNames()).sort()).toEqual(['API_TOKEN', 'OTHER_KEY']);
    expect(await deps.metrics.secrets()).toEqual({ total: 2, configured: 1 });
    expect((await deps.metrics.scripts()).pending).toBe(1);
  });

  it('loads the toolset once, on first use', async () => {
    const first = deps.toolset();
    expect(deps.toolset()).toBe(first);
    const toolset = await first;
    expect(typeof toolset.makeContext).toBe('function');
  });

  it('uses a given auth module instead of building one', async () => {
    const again = await buildAppDeps(t.ctx, core, parts as ServerParts, deps.auth);
    expect(again.auth).toBe(deps.auth);
  });
});
