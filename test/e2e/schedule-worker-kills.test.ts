import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileMirror } from '../../src/scripts/file-mirror.js';
import { createScriptService } from '../../src/scripts/script-service.js';
import { groupKeyOf } from '../../src/schedules/tick-groups.js';
import { createLimiter, createTickRunner } from '../../src/schedules/tick-runner.js';
import { keys } from '../../src/store/keys.js';
import { createScriptRepository } from '../../src/store/script-repository.js';
import { scheduleHarness, waitFor, type ScheduleHarness } from '../schedules/harness.js';
import { spawnWorker, type WorkerProcess } from '../schedules/processes.js';
import { startWebhookReceiver, type WebhookReceiver } from '../schedules/webhook-receiver.js';
import { deploymentSigner } from '../support/script-record.js';
import { memoryTrail } from '../support/trail.js';

/**
 * Two deaths in a row across different windows (issue 42, item 6): a worker dies after claiming
 * a tick, then the `steward worker` process that took the firing over is SIGKILLed while the
 * webhook receiver holds its POST open (the send is in flight). The firing must run once and
 * its delivery end once: delivered, or `unknown` where the POST's fate cannot be known — never
 * duplicated, never left pending.
 */
describe('a firing through two worker deaths', () => {
  let h: ScheduleHarness | undefined;
  let hook: WebhookReceiver | undefined;
  let workers: WorkerProcess[] = [];
  let dir = '';
  afterEach(async () => {
    await Promise.all(workers.map((w) => w.kill()));
    workers = [];
    await hook?.close();
    await h?.close();
    h = undefined;
    hook = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = '';
  });

  const lockTtl = '2s';

  async function startWorker(): Promise<WorkerProcess> {
    const config = JSON.stringify({
      egress: { allow: [hook!.host], timeout: '120s' },
      webhooks: { channels: { ops: hook!.url } },
      schedules: { lock_ttl: lockTtl },
      engine: { autostart: false },
    });
    const w = spawnWorker({ prefix: h!.t.prefix, dir, config });
    workers.push(w);
    const queue = h!.t.ctx.queues.queue('scheduleRuns');
    await waitFor(
      async () => {
        // A worker that exits (a refused start) fails the test with its own words, at once.
        if (w.child.exitCode !== null) throw new Error(`worker exited: ${w.output()}`);
        return (await queue.getWorkersCount()) >= 1;
      },
      60_000,
      'the worker process to start',
    );
    return w;
  }

  it('a kill after a tick claim, then a kill mid-POST: run once, one POST, delivery unknown', async () => {
    // The receiver holds the first POST open: its sender is mid-send until it is killed.
    hook = await startWebhookReceiver((n) => n !== 1);
    h = await scheduleHarness({
      'egress.allow': [hook.host],
      'egress.timeout': '120s',
      'webhooks.channels': { ops: hook.url },
      'schedules.lock_ttl': lockTtl,
    });
    const scripts = createScriptService({
      store: createScriptRepository(h.t.ctx.redis),
      mirror: createFileMirror(h.t.ctx.config.paths.scripts),
      log: h.t.ctx.log,
      signer: await deploymentSigner(h.t.ctx),
      trail: memoryTrail(),
    });
    await scripts.create('hello.star', 'def main():\n    return "hello"\n', 'admin');
    await scripts.approve('hello.star', 'admin');
    // Another host of the deployment shares its approval key: a worker refuses to make a new one
    // where the store knows one (so the key is copied once the approval above has made it).
    dir = mkdtempSync(path.join(os.tmpdir(), 'steward-two-kills-'));
    mkdirSync(path.join(dir, 'data'), { recursive: true });
    copyFileSync(
      path.join(h.t.dir, 'data', 'approval_key'),
      path.join(dir, 'data', 'approval_key'),
    );

    const pattern = '0 3 * * *';
    const s = await h.schedules.service.create({
      name: 'two-kills',
      cron_expr: pattern,
      type: 'script',
      script_name: 'hello.star',
      output_target: { provider: 'webhook', channel_id: 'ops' },
    });
    // Death 1: a worker claims the tick and never takes its runs.
    const spec = { group: groupKeyOf(pattern, 'UTC'), pattern, tz: 'UTC' };
    const dying = createTickRunner({
      ticks: h.schedules.ticks,
      executor: { ...h.schedules.executor, takeBatch: () => new Promise<never>(() => {}) },
      limiter: createLimiter(8),
      retentionMs: h.schedules.claimRetentionMs,
      log: { warn: () => {} },
    });
    const fire = Date.now() - 1000;
    void dying.onTick(spec, fire);
    await waitFor(
      async () => (await h!.t.ctx.redis.exists(keys.scheduleTick(spec.group, fire))) === 1,
      10_000,
      'the tick claimed',
    );

    // Death 2: the process whose sweep took the firing over is killed while its POST is held.
    const first = await startWorker();
    await waitFor(async () => hook!.received.length >= 1, 60_000, 'the POST at the receiver');
    await first.kill();
    await startWorker();

    const entry = await waitFor(
      async () => {
        const [e] = await h!.schedules.store.runs(s.id);
        return e?.delivery && e.delivery.status !== 'pending' ? e : null;
      },
      60_000,
      'the delivery to end',
    );
    expect(entry).toMatchObject({
      status: 'success',
      output: 'hello',
      scheduled_at: new Date(fire).toISOString(),
    });
    expect(entry.delivery?.status).toBe('unknown');
    expect(await h.schedules.store.runs(s.id)).toHaveLength(1);
    expect(hook.received.map((b) => b.run_id)).toEqual([entry.id]);
    expect(await h.t.ctx.redis.zcard(keys.scheduleDeliveriesPending())).toBe(0);
  }, 180_000);
});
