import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import type { Logger } from '../../src/log/logger.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { QueueTimeoutError } from '../../src/errors/queue-errors.js';
import { ServiceUnavailableError } from '../../src/errors/request-errors.js';
import { ScriptNotFoundError, ScriptRefusedError } from '../../src/errors/script-errors.js';
import type { QueueClient } from '../../src/queue/client.js';
import {
  isRefused,
  runDeadline,
  type RunRefused,
  type RunRefusal,
  type ScriptRunPayload,
  type RunOutcome,
} from '../../src/queue/script-runs.js';
import { createFileMirror, type FileMirror } from '../../src/scripts/file-mirror.js';
import { hashSource } from '../../src/contracts/script-hashes.js';
import { createRecentChecks, type RecentChecks } from '../../src/scripts/recent-checks.js';
import {
  createScriptRunner,
  refusalError,
  type RunCheck,
  type ScriptRunner,
} from '../../src/scripts/script-runner.js';
import { createScriptService, type ScriptService } from '../../src/scripts/script-service.js';
import { keys } from '../../src/store/keys.js';
import type { Redis } from '../../src/store/redis.js';
import {
  createScriptRepository,
  type ScriptRepository,
} from '../../src/store/script-repository.js';
import { createStatsRepository, type StatsRepository } from '../../src/store/stats-repository.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';
import { testSigner } from '../support/script-record.js';
import { memoryTrail } from '../support/trail.js';

let prefix: string;
let dir: string;
let redis: Redis;
let repository: ScriptRepository;
let stats: StatsRepository;
let mirror: FileMirror;
let scripts: ScriptService;
const silent = pino({ level: 'silent' });
const limits = { wall_time: 2000 };

/** A queue client standing in for the worker: it records each job and answers `answer`. */
function fakeQueue(answer: (payload: ScriptRunPayload) => RunOutcome) {
  const jobs: Array<{ key: string; payload: ScriptRunPayload; timeoutMs: number }> = [];
  const queues = {
    run: (async (key: string, payload: ScriptRunPayload, timeoutMs: number) => {
      jobs.push({ key, payload, timeoutMs });
      return answer(payload);
    }) as unknown as QueueClient['run'],
  };
  return { jobs, queues };
}

function runner(
  answer: (payload: ScriptRunPayload) => RunOutcome = () => ok,
  overrides: { stats?: StatsRepository; log?: Logger; recent?: RecentChecks } = {},
) {
  const queue = fakeQueue(answer);
  const r: ScriptRunner = createScriptRunner({
    store: repository,
    mirror,
    queues: queue.queues,
    stats: overrides.stats ?? stats,
    limits,
    log: overrides.log ?? silent,
    ...(overrides.recent ? { recent: overrides.recent } : {}),
  });
  return { r, jobs: queue.jobs };
}

const ok: RunOutcome = { success: true, result: { n: 1 }, duration_ms: 7, logs: ['hi'] };
let seq = 0;
/** The record and hash of a check that passed; throws (failing the test) on a refusal. */
async function passed(check: Promise<RunCheck>) {
  const found = await check;
  if ('refusal' in found) throw new Error(`expected a passed check, got ${found.error}`);
  return found;
}

/** A refused outcome or check; throws (failing the test) on anything else. */
function refusedOf(outcome: RunOutcome | RunCheck | object): RunRefused {
  if (!('refusal' in outcome) || !isRefused(outcome as RunOutcome)) {
    throw new Error(`expected a refusal, got ${JSON.stringify(outcome).slice(0, 200)}`);
  }
  return outcome as RunRefused;
}

/** A fresh script name per test, so history and refusals never leak between tests. */
const fresh = () => `run-${++seq}.star`;

async function approvedScript(source = 'result = {"n": 1}\n'): Promise<string> {
  const name = fresh();
  await scripts.create(name, source, 'admin');
  await scripts.approve(name, 'admin');
  return name;
}

beforeAll(() => {
  prefix = uniquePrefix('script-runner');
  dir = mkdtempSync(path.join(os.tmpdir(), 'steward-script-runner-'));
  redis = storeRedis(prefix);
  repository = createScriptRepository(redis);
  stats = createStatsRepository(redis);
  mirror = createFileMirror(dir);
  scripts = createScriptService({
    store: repository,
    mirror,
    log: silent,
    signer: testSigner,
    trail: memoryTrail(),
  });
});
afterAll(async () => {
  redis.disconnect();
  await dropPrefix(prefix);
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  await redis.del(keys.executionStats());
});

describe('script runner pre-check', () => {
  it('refuses a script that does not exist (404), without enqueueing', async () => {
    const { r, jobs } = runner();
    const refused = {
      success: false,
      refusal: 'not_found',
      error: 'script nope.star not found',
      duration_ms: 0,
      logs: [],
    };
    expect(await r.check('nope.star')).toEqual(refused);
    const outcome = await r.run({ name: 'nope.star', args: {}, origin: 'api' });
    expect(outcome).toEqual(refused);
    expect(jobs).toEqual([]);
    const err = refusalError('nope.star', refusedOf(refused));
    expect(err).toBeInstanceOf(ScriptNotFoundError);
    expect(err).toMatchObject({ code: 'script_not_found', details: { script: 'nope.star' } });
  });

  it('refuses a pending script with script_not_approved', async () => {
    const name = fresh();
    await scripts.create(name, 'x = 1\n', 'admin');
    const { r, jobs } = runner();
    const outcome = await r.run({ name, args: {}, origin: 'mcp' });
    expect(outcome).toMatchObject({ success: false, refusal: 'pending' });
    expect(refusalError(name, refusedOf(outcome))).toMatchObject({
      code: 'script_not_approved',
      message: new ScriptRefusedError(name, 'pending').message,
      details: { reason: 'pending' },
    });
    expect(jobs).toEqual([]);
  });

  it('refuses a rejected script, unless its name is allowlisted', async () => {
    const name = fresh();
    await scripts.create(name, 'x = 1\n', 'admin');
    await scripts.reject(name, 'admin', 'no');
    const { r } = runner();
    expect(await r.check(name)).toMatchObject({ refusal: 'rejected' });
    expect((await passed(r.check(name, true))).hash).toBe(hashSource('x = 1\n'));
  });

  it("notes each check it passes, with the file's hash, for this process's worker", async () => {
    const recent = createRecentChecks();
    const name = await approvedScript('x = 3\n');
    const { r } = runner(() => ok, { recent });
    const { hash } = await passed(r.check(name));
    expect(recent.fresh(name, hash, true)).toMatchObject({ record: { name }, fileHash: hash });

    // An allowlisted check does not look at the file: its note cannot stand for an approval.
    const other = fresh();
    await scripts.create(other, 'x = 4\n', 'admin');
    const allowed = await passed(r.check(other, true));
    expect(recent.fresh(other, allowed.hash, true)).toBeUndefined();
    expect(recent.fresh(other, allowed.hash, false)).toBeDefined();

    // A refused check notes nothing.
    const pending = fresh();
    await scripts.create(pending, 'x = 5\n', 'admin');
    expect(await r.check(pending)).toMatchObject({ refusal: 'pending' });
    expect(recent.fresh(pending, hashSource('x = 5\n'), false)).toBeUndefined();
  });

  it('refuses a script changed since its approval with 409 script_modified', async () => {
    const name = await approvedScript();
    await scripts.update(name, 'x = 2\n', 'admin');
    const { r } = runner();
    const refused = await r.check(name);
    expect(refused).toMatchObject({ refusal: 'modified' });
    const err = refusalError(name, refusedOf(refused));
    expect(err).toBeInstanceOf(ScriptRefusedError);
    expect(err).toMatchObject({ code: 'script_modified', status: 409 });
  });

  it('refuses an approved script whose file was edited but not imported yet', async () => {
    const name = await approvedScript();
    writeFileSync(mirror.fileOf(name), 'result = "edited on disk"\n');
    const { r, jobs } = runner();
    expect(await r.run({ name, args: {}, origin: 'api' })).toMatchObject({
      refusal: 'modified',
    });
    expect(jobs).toEqual([]);
    // An allowlisted name runs the stored source: the file plays no part.
    expect((await passed(r.check(name, true))).hash).toBe(hashSource('result = {"n": 1}\n'));
  });

  it('passes an approved script whose mirror file is missing, with its approved hash', async () => {
    const source = 'result = {"n": 2}\n';
    const name = await approvedScript(source);
    await mirror.remove(name);
    const { r } = runner();
    const { record, hash } = await passed(r.check(name));
    expect(hash).toBe(hashSource(source));
    expect(record).toMatchObject({ name, status: 'approved' });
  });

  it('runs the current source of an allowlisted pending script', async () => {
    const name = fresh();
    await scripts.create(name, 'y = 1\n', 'admin');
    const { r, jobs } = runner();
    await r.run({ name, args: [1], origin: 'mcp', allowUnapproved: true });
    expect(jobs[0]?.payload).toMatchObject({ hash: hashSource('y = 1\n'), allowUnapproved: true });
  });
});

describe('script runner runs', () => {
  it('enqueues on script-runs with the checked hash and waits the run deadline', async () => {
    const name = await approvedScript();
    const { r, jobs } = runner();
    const before = Date.now();
    await r.run({ name, args: { a: 1 }, function: 'main', origin: 'schedule' });
    expect(jobs).toEqual([
      {
        key: 'scriptRuns',
        payload: {
          name,
          hash: hashSource('result = {"n": 1}\n'),
          args: { a: 1 },
          function: 'main',
          origin: 'schedule',
          allowUnapproved: false,
          callerDeadline: expect.any(Number),
        },
        timeoutMs: runDeadline(limits),
      },
    ]);
    // The worker learns when its caller stops waiting: the run deadline from now.
    const deadline = (jobs[0]?.payload as { callerDeadline: number }).callerDeadline;
    expect(deadline).toBeGreaterThanOrEqual(before + runDeadline(limits));
    expect(deadline).toBeLessThanOrEqual(Date.now() + runDeadline(limits));
    await r.run({ name, args: [], origin: 'api' });
    expect(jobs[1]?.payload).not.toHaveProperty('function');
  });

  it('answers the result and records it in the history and the execution stats', async () => {
    const name = await approvedScript();
    const failed: RunOutcome = { success: false, error: 'boom', duration_ms: 3, logs: [] };
    const { r } = runner((p) => (p.args && Array.isArray(p.args) ? failed : ok));
    expect(await r.run({ name, args: {}, origin: 'api' })).toEqual(ok);
    expect(await r.run({ name, args: [], origin: 'mcp' })).toEqual(failed);
    const history = await repository.executionHistory(name);
    expect(history.map(({ success, duration_ms }) => ({ success, duration_ms }))).toEqual([
      { success: false, duration_ms: 3 },
      { success: true, duration_ms: 7 },
    ]);
    expect(Date.parse(history[0]?.timestamp ?? '')).not.toBeNaN();
    expect(await stats.read()).toEqual({ total: 2, success: 1, failed: 1, avg_duration_ms: 5 });
  });

  it('answers a failed outcome when no worker answers, and records it as a failure', async () => {
    const name = await approvedScript();
    const failing = (err: Error) =>
      createScriptRunner({
        store: repository,
        mirror,
        queues: { run: (() => Promise.reject(err)) as unknown as QueueClient['run'] },
        stats,
        limits,
        log: silent,
      });
    const stalled = await failing(new Error('job stalled')).run({ name, args: {}, origin: 'api' });
    expect(stalled).toMatchObject({ success: false, error: 'script run failed: job stalled' });
    expect((await repository.executionHistory(name))[0]?.success).toBe(false);
    const late = await failing(new QueueTimeoutError(7000)).run({ name, args: {}, origin: 'api' });
    expect(late).toMatchObject({
      success: false,
      error: `script run gave no result within ${runDeadline(limits)} ms (no worker, or the worker died)`,
      logs: [],
    });
    // Shutdown: the caller gets the 503 the process is about to stop with.
    const stopping = new ServiceUnavailableError('shutting down');
    await expect(failing(stopping).run({ name, args: {}, origin: 'api' })).rejects.toBe(stopping);
  });

  it("answers a refusal of the worker unchanged, with the catalogue's error for it; records nothing", async () => {
    const name = await approvedScript();
    const refused = (refusal: RunRefusal, error = 'script refused') =>
      runner(() => ({ success: false, error, refusal, duration_ms: 0, logs: [] })).r;

    const gone = await refused('not_found', 'script vanished').run({
      name,
      args: {},
      origin: 'api',
    });
    expect(gone).toMatchObject({ refusal: 'not_found', error: 'script vanished' });
    expect(refusalError(name, refusedOf(gone))).toBeInstanceOf(ScriptNotFoundError);
    expect(refusalError(name, refusedOf(gone))).toMatchObject({
      message: 'script vanished',
      details: { script: name },
    });

    const changed = await refused('modified', 'changed under us').run({
      name,
      args: {},
      origin: 'api',
    });
    expect(refusalError(name, refusedOf(changed))).toMatchObject({
      code: 'script_modified',
      message: 'changed under us',
    });

    const pending = await refused('pending').run({ name, args: {}, origin: 'api' });
    expect(refusalError(name, refusedOf(pending))).toMatchObject({
      code: 'script_not_approved',
      message: 'script refused',
      details: { reason: 'pending' },
    });

    expect(await repository.executionHistory(name)).toEqual([]);
    expect((await stats.read()).total).toBe(0);
  });

  it('still answers the result when recording fails, and logs a warning', async () => {
    const name = await approvedScript();
    const lines: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const broken: StatsRepository = {
      ...stats,
      record: () => Promise.reject(new Error('redis down')),
    };
    const { r } = runner(() => ok, { stats: broken, log });
    expect(await r.run({ name, args: {}, origin: 'api' })).toEqual(ok);
    // The record is written after the answer, so its warning comes just after too.
    await vi.waitFor(() => expect(lines).toHaveLength(1));
    const warning = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(warning).toMatchObject({ msg: 'could not record a run', script: name });
  });
});
