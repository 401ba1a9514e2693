import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningWorkers } from '../../src/workers/start.js';
import { createTestApp, startTestWorkers, type TestApp } from '../support/app.js';
import { adminToken } from '../support/auth.js';
import { startSentinelCluster, type SentinelCluster } from '../support/sentinel.js';

describe('Redis Sentinel: a failover under traffic', { timeout: 120_000 }, () => {
  let cluster: SentinelCluster;
  let t: TestApp;
  let auth: Record<string, string>;
  let workers: RunningWorkers | undefined;

  beforeAll(async () => {
    cluster = await startSentinelCluster();
    t = await createTestApp(
      {
        'redis.sentinels': cluster.sentinels,
        'redis.sentinel_name': cluster.name,
        // Every acknowledged change is on a replica too, so a promoted one has it.
        'redis.wait_replicas': 1,
        'admin.rate_limit.api_per_minute': 100_000,
      },
      'sentinel',
    );
    auth = { authorization: `Bearer ${await adminToken(t)}` };
  }, 60_000);

  afterAll(async () => {
    await workers?.close();
    await t?.close();
    await cluster?.stop();
  });

  it('answers 503 only while the primary is gone, then recovers on the new primary without losing an acknowledged write, and schedules fire once each', async () => {
    const script = 'def main():\n    return {"tick": True}\n';
    for (const [method, url, payload] of [
      ['POST', '/api/scripts', { name: 'tick.star', source: script }],
      ['POST', '/api/scripts/tick.star/approve', undefined],
    ] as const) {
      const res = await t.app.inject({
        method,
        url,
        headers: auth,
        ...(payload ? { payload } : {}),
      });
      expect(res.statusCode, res.body).toBeLessThan(300);
    }
    workers = await startTestWorkers(t);
    const schedule = await t.services.schedules.service.create({
      name: 'every-second',
      cron_expr: '*/1 * * * * *',
      type: 'script',
      script_name: 'tick.star',
    });
    await new Promise((r) => setTimeout(r, 2500));

    const acknowledged: string[] = [];
    const statuses = new Map<number, number>();
    let firstFailure: number | undefined;
    let recoveredAt: number | undefined;
    let killedAt: number | undefined;
    const deadline = Date.now() + 60_000;
    let successesAfterFailover = 0;
    let lastFailure = '';
    for (let i = 0; Date.now() < deadline && successesAfterFailover < 20; i++) {
      if (i === 20) {
        cluster.killPrimary();
        killedAt = Date.now();
      }
      const name = `FAILOVER_${i}`;
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/secrets/${name}`,
        headers: auth,
        payload: { value: `value-number-${i}` },
      });
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      if (res.statusCode === 200) {
        acknowledged.push(name);
        if (firstFailure !== undefined && recoveredAt === undefined) recoveredAt = Date.now();
        if (
          killedAt !== undefined &&
          cluster.replicaPorts.includes(await cluster.currentPrimary())
        ) {
          successesAfterFailover++;
        }
      } else {
        expect(res.statusCode, res.body).toBe(503);
        expect(res.json()).toMatchObject({ error: 'service_unavailable' });
        firstFailure ??= Date.now();
        lastFailure = res.body;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    const promoted = await cluster.currentPrimary();
    expect(cluster.replicaPorts).toContain(promoted);
    expect(
      successesAfterFailover,
      `${JSON.stringify(Object.fromEntries(statuses))} ${lastFailure}`,
    ).toBe(20);
    const outage = firstFailure === undefined ? 0 : (recoveredAt ?? Date.now()) - firstFailure;
    // Sentinel declares the primary down after 1 s and promotes the replica within a few more.
    expect(outage).toBeLessThan(15_000);
    console.log(
      `failover: ${JSON.stringify(Object.fromEntries(statuses))}; 503s for ${outage} ms after the primary was killed`,
    );

    const listed = await t.app.inject({ method: 'GET', url: '/api/secrets', headers: auth });
    expect(listed.statusCode).toBe(200);
    const names = new Set(
      (listed.json() as { secrets: Array<{ name: string }> }).secrets.map((s) => s.name),
    );
    for (const name of acknowledged) expect(names.has(name), name).toBe(true);

    // Firings went on after the failover, and none ran twice.
    await new Promise((r) => setTimeout(r, 3000));
    await t.services.schedules.service.setEnabled(schedule.id, false);
    await new Promise((r) => setTimeout(r, 1500));
    const runs = await t.services.schedules.store.runs(schedule.id);
    const perFire = new Map<string, number>();
    for (const r of runs)
      perFire.set(String(r.scheduled_at), (perFire.get(String(r.scheduled_at)) ?? 0) + 1);
    expect([...perFire.entries()].filter(([, n]) => n > 1)).toEqual([]);
    const last = Math.max(...[...perFire.keys()].map((k) => Date.parse(k)));
    expect(last).toBeGreaterThan((killedAt ?? 0) + 3000);
    console.log(`schedule: ${perFire.size} firings, each run once, across the failover`);

    // With no replica left to confirm it, a change is not acknowledged.
    for (const port of cluster.replicaPorts) if (port !== promoted) cluster.kill(port);
    await new Promise((r) => setTimeout(r, 500));
    const unconfirmed = await t.app.inject({
      method: 'POST',
      url: '/api/secrets/UNCONFIRMED',
      headers: auth,
      payload: { value: 'value-unconfirmed' },
    });
    expect(unconfirmed.statusCode).toBe(503);
    expect(unconfirmed.json()).toEqual({
      error: 'service_unavailable',
      message:
        'the change reached the primary but 0 of 1 replica(s) confirmed it within 1000 ms; it may or may not be kept — check before repeating it',
    });
  });
});
