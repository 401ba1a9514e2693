import { afterEach, describe, expect, it } from 'vitest';
import { buildCore } from '../../src/cli/compose.js';
import { createFileMirror } from '../../src/scripts/file-mirror.js';
import { createScriptService } from '../../src/scripts/script-service.js';
import { keys } from '../../src/store/keys.js';
import { createScriptRepository } from '../../src/store/script-repository.js';
import { scheduleHarness, waitFor, type ScheduleHarness } from '../schedules/harness.js';
import { spawnWorker, type WorkerProcess } from '../schedules/processes.js';
import { startTelegramStandIn, type TelegramStandIn } from '../support/telegram-stand-in.js';
import { deploymentSigner } from '../support/script-record.js';
import { memoryTrail } from '../support/trail.js';

/**
 * The chat gateway across `steward worker` processes: one leader polls Telegram, another takes
 * over within 15 s of its death (never two pollers at once), and a delivery whose worker dies
 * mid-send is finished by another worker without sending any part twice.
 */
describe('chat gateway and delivery across worker processes', { timeout: 120_000 }, () => {
  let h: ScheduleHarness | undefined;
  let api: TelegramStandIn | undefined;
  let workers: WorkerProcess[] = [];
  afterEach(async () => {
    await Promise.all(workers.map((w) => w.kill()));
    workers = [];
    await h?.close();
    await api?.close();
    h = undefined;
    api = undefined;
  });

  async function deployment() {
    api = await startTelegramStandIn();
    h = await scheduleHarness();
    const core = await buildCore(h.t.ctx);
    await core.secrets.set('TELEGRAM_TOKEN', api.token);
    return `chat:\n  telegram:\n    token_secret: TELEGRAM_TOKEN\n    allow: [501]\n    api_root: ${api.apiRoot}\n`;
  }

  const start = (config: string) => {
    const w = spawnWorker({ prefix: h!.t.prefix, dir: h!.t.dir, config });
    workers.push(w);
    return w;
  };
  const leaderPid = async () => {
    const owner = await h!.t.ctx.redis.get(keys.chatLease());
    return owner ? Number(owner.split(':')[1]) : null;
  };

  it('hands polling to a standby within 15 s of the leader being killed, never polling twice', async () => {
    const config = await deployment();
    const a = start(config);
    const b = start(config);
    const first = await waitFor(leaderPid, 40_000, `a leader (${a.output()}${b.output()})`);
    await api!.waitFor(() => api!.calls.some((c) => c.method === 'getUpdates'), 20_000);
    const [leader, standby] = first === a.child.pid ? [a, b] : [b, a];
    expect([a.child.pid, b.child.pid]).toContain(first);

    const killedAt = Date.now();
    await leader.kill();
    const takeover = await api!.waitFor(
      () => api!.calls.find((c) => c.method === 'deleteWebhook' && c.at > killedAt),
      20_000,
    );
    const took = takeover.at - killedAt;
    expect(took).toBeLessThan(15_000);
    expect(await leaderPid()).toBe(standby.child.pid);

    // The new leader answers: a stranger gets a pairing code.
    api!.userWrites({ id: 777, first_name: 'Eve' }, 'hello');
    const notice = await api!.waitFor(() => api!.chatTexts(777)[0], 20_000);
    expect(notice).toMatch(/pairing code [A-Z0-9]{8}/);
    expect(api!.polling.conflicts).toBe(0);
    console.log(`chat failover: standby polling ${took} ms after the leader's SIGKILL`);
  });

  it("sends no part twice when the delivering worker dies mid-send; the run's delivery is unknown", async () => {
    const config = await deployment();
    const scripts = createScriptService({
      store: createScriptRepository(h!.t.ctx.redis),
      mirror: createFileMirror(h!.t.ctx.config.paths.scripts),
      log: h!.t.ctx.log,
      signer: await deploymentSigner(h!.t.ctx),
      trail: memoryTrail(),
    });
    await scripts.create(
      'long.star',
      'def main():\n    return "\\n".join(["row %d %s" % (1000 + i, "x" * 40) for i in range(200)])\n',
      'admin',
    );
    await scripts.approve('long.star', 'admin');
    const a = start(config);
    await waitFor(leaderPid, 40_000, `a leader (${a.output()})`);
    const s = await h!.schedules.service.create({
      name: 'long',
      cron_expr: '0 0 1 1 *',
      type: 'script',
      script_name: 'long.star',
      enabled: false,
      output_target: { provider: 'telegram', channel_id: '501' },
    });
    // Part 1 goes through; part 2 reaches Telegram, and its sender dies before hearing back.
    const first = api!.holdNext('sendMessage');
    await h!.schedules.service.trigger(s.id);
    await first.reached;
    const second = api!.holdNext('sendMessage');
    first.release();
    await second.reached;
    await a.kill();
    second.release();
    start(config);
    const entry = await waitFor(
      async () => {
        const [run] = await h!.schedules.store.runs(s.id);
        return run?.delivery && run.delivery.status !== 'pending' ? run : null;
      },
      60_000,
      'the delivery outcome',
    );
    expect(entry.delivery?.status).toBe('unknown');
    expect(entry.delivery?.error).toMatch(/part 2 of 3 may or may not have been sent/);
    // Part 1 went once, part 2 reached Telegram once, part 3 was not sent blindly after it.
    const texts = api!.messages.filter((m) => m.chat_id === '501').map((m) => m.text);
    expect(texts).toHaveLength(2);
    expect(texts[0]).toMatch(/^long\nrow 1000 x{40}\nrow 1001 /);
    expect(new Set(texts).size).toBe(2);
    expect(api!.calls.filter((c) => c.method === 'sendMessage')).toHaveLength(2);
  });
});
