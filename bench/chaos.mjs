// Exactly-once delivery under chaos (issue 42, item 6): two `steward worker` processes, one
// schedule firing every second whose script's output goes to a Telegram chat (a loopback
// stand-in), for DURATION seconds (default 120), while a worker chosen at random is SIGKILLed
// every 10–20 s and started again at once. Every message the stand-in receives is counted and
// matched to its run (the script asks a loopback counter for a number, so every run's output,
// and so its message, is unique). Then every firing of the window must be accounted for: run
// and delivered exactly once, marked `unknown` (its send may or may not have gone out) or
// `failed`, ended as interrupted (its worker died mid-run), or recorded as skipped; and no run
// may have two messages, or a message that belongs to no run.
// A run takes SCRIPT_MS (default 300: the counter answers that late) and a send SEND_MS (default
// 200: Telegram's answer comes that late, the message already shown), so a kill often lands in
// the middle of one or the other.
// Run with `npm run bench:chaos` (a private redis-server; SEED=n repeats a run's kill times).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { buildCore, buildServerParts } from '../dist/cli/compose.js';
import { loadConfig } from '../dist/config/load.js';
import { createLogger } from '../dist/log/logger.js';
import { createContext } from '../dist/runtime/context.js';
import { startEmbeddedRedis } from '../dist/store/embedded-redis.js';
import { keys } from '../dist/store/keys.js';
import { startTelegramStandIn } from './telegram-stand-in.mjs';

const DURATION_MS = Number(process.env.DURATION ?? 120) * 1000;
const SCRIPT_MS = Number(process.env.SCRIPT_MS ?? 300);
const SEND_MS = Number(process.env.SEND_MS ?? 200);
const SEED = Number(process.env.SEED ?? Date.now() % 1_000_000);
const CHAT = '4242';
const cli = new URL('../dist/cli/main.js', import.meta.url).pathname;
const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-bench-chaos-'));
const prefix = 'chaos:';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// mulberry32: the kill schedule of a run can be repeated with its seed.
let state = SEED >>> 0;
const random = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const redis = await startEmbeddedRedis(path.join(dir, 'redis'));
const telegram = await startTelegramStandIn({ sendMs: SEND_MS });
let counter = 0;
const counterServer = createServer((_req, res) => {
  const n = ++counter;
  setTimeout(() => res.end(`run ${n}`), SCRIPT_MS);
});
await new Promise((r) => counterServer.listen(0, '127.0.0.1', r));
const counterPort = counterServer.address().port;

const configFile = path.join(dir, 'steward.yaml');
writeFileSync(
  configFile,
  JSON.stringify({
    chat: { telegram: { token_secret: 'TELEGRAM_TOKEN', api_root: telegram.apiRoot } },
    egress: { allow: [`127.0.0.1:${counterPort}`] },
    engine: { autostart: false },
  }),
);
const env = {
  PATH: process.env.PATH ?? '',
  HOME: dir,
  REDIS_URL: redis.url,
  STEWARD_REDIS_PREFIX: prefix,
  STEWARD_DATA_DIR: path.join(dir, 'data'),
  STEWARD_WORKSPACE: path.join(dir, 'ws'),
  STEWARD_LOG_LEVEL: process.env.STEWARD_LOG_LEVEL ?? 'error',
  STEWARD_CONFIG: configFile,
};
const config = loadConfig({
  cwd: dir,
  env,
  file: configFile,
  overrides: { 'redis.url': redis.url },
});
const ctx = await createContext(config, createLogger('error'), redis.url, env);
const core = await buildCore(ctx);
const parts = await buildServerParts(ctx, core, { superviseEngine: false });

const workers = [null, null];
const kills = [];
const startWorker = (slot) => {
  const child = spawn(process.execPath, [cli, 'worker'], {
    cwd: dir,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  workers[slot] = child;
  return child;
};
const exited = (child) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((r) => child.once('exit', r));

const runs = new Map();
let scheduleId = null;
let polling = true;
const poller = (async () => {
  while (polling) {
    if (scheduleId) {
      for (const entry of await parts.schedules.store.runs(scheduleId)) runs.set(entry.id, entry);
    }
    await sleep(1000);
  }
})();

try {
  await core.secrets.set('TELEGRAM_TOKEN', telegram.token);
  const source = `def main():\n    return http.get("http://127.0.0.1:${counterPort}/next")["body"]\n`;
  await core.scripts.create('chaos.star', source, 'admin');
  await core.scripts.approve('chaos.star', 'admin');
  startWorker(0);
  startWorker(1);
  const queue = ctx.queues.queue('scheduleRuns');
  while ((await queue.getWorkersCount()) < 2) await sleep(100);

  const schedule = await parts.schedules.service.create({
    name: 'chaos',
    cron_expr: '*/1 * * * * *',
    type: 'script',
    script_name: 'chaos.star',
    output_target: { provider: 'telegram', channel_id: CHAT },
  });
  scheduleId = schedule.id;
  const startedAt = Date.now();
  process.stdout.write(
    `seed ${SEED}: one schedule every second to Telegram, 2 workers, ${DURATION_MS / 1000} s, a worker SIGKILLed every 10–20 s; a run takes ${SCRIPT_MS} ms, a send ${SEND_MS} ms\n`,
  );
  for (;;) {
    const wait = 10_000 + random() * 10_000;
    if (Date.now() + wait > startedAt + DURATION_MS) break;
    await sleep(wait);
    const slot = random() < 0.5 ? 0 : 1;
    const victim = workers[slot];
    victim.kill('SIGKILL');
    kills.push({ at: Date.now(), slot });
    await exited(victim);
    startWorker(slot);
  }
  await sleep(Math.max(0, startedAt + DURATION_MS - Date.now()));
  await parts.schedules.service.setEnabled(scheduleId, false);
  const stoppedAt = Date.now();

  // Settle: runs in flight end (a dead worker's lease expires, schedules.lock_ttl), and every
  // delivery reaches an end (a dead worker's job is taken over after its lock, 10 s).
  const deliveries = ctx.queues.queue('deliveries');
  const settleDeadline = Date.now() + 120_000;
  for (;;) {
    await sleep(2000);
    const inFlight = await ctx.redis.zcard(keys.scheduleRunning());
    const pending = [...runs.values()].filter((e) => e.delivery?.status === 'pending').length;
    const jobs = await deliveries.getJobCounts('waiting', 'active', 'delayed');
    const open = jobs.waiting + jobs.active + jobs.delayed;
    if ((inFlight === 0 && pending === 0 && open === 0) || Date.now() > settleDeadline) break;
  }
  polling = false;
  await poller;
  const armedAt = Number(
    (await ctx.redis.hget(keys.schedule(scheduleId), 'armed_at')) ?? startedAt,
  );

  // ---- The tally.
  // Firings of the window; the first and last 2 s are left out (creation and disabling race
  // them), as are firings after the schedule was disabled.
  const first = Math.ceil((armedAt + 2000) / 1000) * 1000;
  const last = Math.floor((stoppedAt - 2000) / 1000) * 1000;
  const fires = [];
  for (let t = first; t <= last; t += 1000) fires.push(t);
  const byFire = new Map();
  const skippedFires = new Set();
  for (const entry of runs.values()) {
    if (entry.status === 'skipped') {
      const range = /from (\S+) to (\S+) were/.exec(entry.error);
      const from = range ? Date.parse(range[1]) : Date.parse(entry.scheduled_at);
      const to = range ? Date.parse(range[2]) : Date.parse(entry.scheduled_at);
      for (let t = from; t <= to; t += 1000) skippedFires.add(t);
      continue;
    }
    const at = Date.parse(entry.scheduled_at ?? '');
    byFire.set(at, [...(byFire.get(at) ?? []), entry]);
  }
  const messagesByOutput = new Map();
  let strayMessages = 0;
  // A failed run's message is its schedule's name and "failed" (the error is not sent): those
  // are counted, not matched.
  let failedMessages = 0;
  for (const m of telegram.messages) {
    if (m.text === 'chaos failed' && m.chat_id === CHAT) {
      failedMessages++;
      continue;
    }
    const output = /^chaos\n(run \d+)$/.exec(m.text)?.[1];
    if (!output || m.chat_id !== CHAT) {
      strayMessages++;
      continue;
    }
    messagesByOutput.set(output, (messagesByOutput.get(output) ?? 0) + 1);
  }
  const outputs = new Set([...runs.values()].map((e) => e.output).filter(Boolean));
  strayMessages += [...messagesByOutput.keys()].filter((o) => !outputs.has(o)).length;

  const t = {
    fires: fires.length,
    runs: 0,
    success: 0,
    interrupted: 0,
    otherErrors: 0,
    skipped: 0,
    missing: [],
    twiceRun: 0,
    delivered: 0,
    unknown: 0,
    failed: 0,
    pendingAtEnd: 0,
    noDelivery: 0,
    messages: telegram.messages.length,
    deliveredOnce: 0,
    lost: [],
    duplicated: [],
    unknownArrived: 0,
    errorsDelivered: 0,
    errorsUnknown: 0,
  };
  for (const fire of fires) {
    const entries = byFire.get(fire) ?? [];
    if (entries.length === 0) {
      if (skippedFires.has(fire)) t.skipped++;
      else t.missing.push(new Date(fire).toISOString());
      continue;
    }
    if (entries.length > 1) t.twiceRun++;
    for (const entry of entries) {
      t.runs++;
      if (entry.status === 'success') t.success++;
      else if (/stopped before the run finished/.test(entry.error)) t.interrupted++;
      else t.otherErrors++;
      if (entry.status !== 'success') {
        if (entry.delivery?.status === 'delivered') t.errorsDelivered++;
        if (entry.delivery?.status === 'unknown') t.errorsUnknown++;
      }
      const received =
        entry.status === 'success' ? (messagesByOutput.get(entry.output) ?? 0) : null;
      const status = entry.delivery?.status;
      if (status === 'delivered') t.delivered++;
      else if (status === 'unknown') t.unknown++;
      else if (status === 'failed') t.failed++;
      else if (status === 'pending') t.pendingAtEnd++;
      else t.noDelivery++;
      if (received === null) continue;
      if (received > 1) t.duplicated.push(entry.output);
      if (status === 'delivered' && received === 1) t.deliveredOnce++;
      if (status === 'delivered' && received === 0) t.lost.push(entry.output);
      if (status === 'pending' && received === 0) t.lost.push(entry.output);
      if (status === 'unknown' && received === 1) t.unknownArrived++;
    }
  }
  // Each failed run delivered once: as many "failed" messages as such deliveries, plus at most
  // one for each whose outcome is unknown.
  const failedOk =
    failedMessages >= t.errorsDelivered && failedMessages <= t.errorsDelivered + t.errorsUnknown;
  const ok =
    failedOk &&
    t.missing.length === 0 &&
    t.twiceRun === 0 &&
    t.duplicated.length === 0 &&
    t.lost.length === 0 &&
    t.pendingAtEnd === 0 &&
    t.noDelivery === 0 &&
    strayMessages === 0;
  const rows = [
    [
      'worker kills (SIGKILL)',
      `${kills.length} at +${kills.map((k) => Math.round((k.at - startedAt) / 1000)).join(', +')} s`,
    ],
    ['firings in the window', t.fires],
    [
      'runs',
      `${t.runs}: ${t.success} success, ${t.interrupted} interrupted (worker killed mid-run, marked error), ${t.otherErrors} other errors`,
    ],
    ['firings recorded as skipped', t.skipped],
    [
      'firings with no record (silently lost)',
      `${t.missing.length}${t.missing.length ? ` (${t.missing.join(', ')})` : ''}`,
    ],
    ['firings run twice', t.twiceRun],
    [
      'deliveries',
      `${t.delivered} delivered, ${t.unknown} unknown, ${t.failed} failed, ${t.pendingAtEnd} still pending, ${t.noDelivery} never started`,
    ],
    ['messages received', `${t.messages} (${strayMessages} matching no run)`],
    ['successful runs delivered exactly once', `${t.deliveredOnce}`],
    ['unknown whose message did arrive', `${t.unknownArrived} of ${t.unknown}`],
    ['duplicated (2+ messages)', t.duplicated.length],
    ['marked delivered or pending, no message (lost)', t.lost.length],
    [
      'failed runs: "failed" messages',
      `${failedMessages} for ${t.errorsDelivered} delivered and ${t.errorsUnknown} unknown`,
    ],
  ];
  const errors = new Map();
  for (const e of runs.values()) {
    if (e.status !== 'error') continue;
    const text = e.error.slice(0, 100);
    errors.set(text, (errors.get(text) ?? 0) + 1);
  }
  for (const [text, n] of errors) rows.push([`  error ×${n}`, text]);
  const width = Math.max(...rows.map(([k]) => k.length));
  for (const [k, v] of rows) process.stdout.write(`${k.padEnd(width)}  ${v}\n`);
  process.stdout.write(
    `${ok ? 'OK' : 'FAILED'}: every run delivered once or marked unknown, none duplicated or silently lost\n`,
  );
  process.exitCode = ok ? 0 : 1;
} finally {
  polling = false;
  for (const w of workers) w?.kill('SIGKILL');
  await Promise.all(workers.filter(Boolean).map(exited));
  await ctx.close();
  await redis.stop();
  await telegram.close();
  counterServer.close();
  rmSync(dir, { recursive: true, force: true });
}
