import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/store/embedded-redis.js';
import { ownRedis, type OwnRedis } from '../support/own-redis.js';
import { roleEnv, spawnRole, stopProcess } from '../support/processes.js';

async function get(url: string): Promise<{ status: number; body: string } | null> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
    return { status: res.status, body: await res.text() };
  } catch {
    return null;
  }
}

async function until<T>(probe: () => Promise<T | null>, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`no answer within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('start-up without Redis', () => {
  const dirs: string[] = [];
  let redis: OwnRedis | undefined;
  afterAll(async () => {
    await redis?.cleanup();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('listens at once with the contract probes, waits for Redis, becomes ready without a restart and exits 0', async () => {
    redis = await ownRedis();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-no-redis-'));
    dirs.push(dir);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = roleEnv(redis.url, 'nr:', dir, { STEWARD_PORT: String(port) });
    const api = spawnRole('api', env);
    const worker = spawnRole('worker', roleEnv(redis.url, 'nr:', dir));
    try {
      const healthz = await until(() => get(`${base}/healthz`), 15_000);
      expect(healthz).toEqual({ status: 200, body: 'OK' });
      // 'starting' while the process loads, then the store as the reason.
      const ready = await until(async () => {
        const res = await get(`${base}/ready`);
        return res && JSON.parse(res.body).reason === 'script_store' ? res : null;
      }, 15_000);
      expect(ready?.status).toBe(503);
      const readyBody = JSON.parse(ready?.body ?? '{}');
      expect(readyBody).toMatchObject({ ready: false, reason: 'script_store' });
      expect(readyBody.checks.script_store).toBe(false);
      const health = await get(`${base}/health`);
      expect(health?.status).toBe(503);
      expect(JSON.parse(health?.body ?? '{}').reason).toBe('store_unavailable');
      const api503 = await get(`${base}/api/setup/status`);
      expect(api503?.status).toBe(503);
      expect(JSON.parse(api503?.body ?? '{}').error).toBe('service_unavailable');

      // Past the old 10 s give-up: both processes are still waiting, not gone.
      await new Promise((r) => setTimeout(r, 11_000));
      expect(api.exitCode).toBeNull();
      expect(worker.exitCode).toBeNull();

      await redis.start();
      const status = await until(async () => {
        const res = await get(`${base}/api/setup/status`);
        return res?.status === 200 ? res : null;
      }, 30_000);
      expect(JSON.parse(status.body)).toEqual({ setup_required: true });
      const readyNow = JSON.parse((await get(`${base}/ready`))?.body ?? '{}');
      expect(readyNow.checks.script_store).toBe(true);
      expect(readyNow.reason).toBe('admin_setup');
    } finally {
      const exits = [api, worker].map(
        (child) => new Promise<number | null>((r) => child.once('exit', (code) => r(code))),
      );
      await Promise.all([stopProcess(api), stopProcess(worker)]);
      expect(await Promise.all(exits)).toEqual([0, 0]);
    }
  }, 90_000);
});
