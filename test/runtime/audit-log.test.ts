import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAuditLog, maxDetailChars, type AuditLog } from '../../src/runtime/audit-log.js';
import { createAuditRepository } from '../../src/store/audit-repository.js';
import { keys } from '../../src/store/keys.js';
import type { Redis } from '../../src/store/redis.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';

const log = pino({ level: 'silent' });
let prefix: string;
const connections: Redis[] = [];

function auditLog(now?: () => Date, redact = (t: string) => t): AuditLog {
  const redis = storeRedis(prefix);
  connections.push(redis);
  return createAuditLog({
    repo: createAuditRepository(redis),
    redact,
    log,
    ...(now ? { now } : {}),
  });
}

beforeEach(() => {
  prefix = uniquePrefix('audit');
});
afterEach(async () => {
  for (const c of connections.splice(0)) c.disconnect();
  await dropPrefix(prefix);
});

const event = (action: string, actor = 'admin', target = 'x.star') => ({
  actor,
  channel: 'api' as const,
  action,
  target,
});

describe('the audit log', () => {
  it('lists newest first, filtered by action prefix and actor, a page at a time', async () => {
    const audit = auditLog();
    await audit.record(event('auth.login'));
    await audit.record(event('script.create'));
    await audit.record(event('script.approve', 'admin'));
    await audit.record(event('script.approve', 'mallory'));
    await audit.record(event('scripts.other'));
    const all = await audit.list({});
    expect(all.entries.map((e) => e.action)).toEqual([
      'scripts.other',
      'script.approve',
      'script.approve',
      'script.create',
      'auth.login',
    ]);
    expect(all.next_cursor).toBeNull();
    const scripts = await audit.list({ action: 'script' });
    expect(scripts.entries.map((e) => e.action)).toEqual([
      'script.approve',
      'script.approve',
      'script.create',
    ]);
    expect((await audit.list({ action: 'script.approve', actor: 'admin' })).entries).toHaveLength(
      1,
    );
    const first = await audit.list({ limit: 2 });
    expect(first.entries).toHaveLength(2);
    const second = await audit.list({ limit: 2, cursor: first.next_cursor! });
    const third = await audit.list({ limit: 2, cursor: second.next_cursor! });
    expect([...first.entries, ...second.entries, ...third.entries].map((e) => e.id)).toEqual(
      all.entries.map((e) => e.id),
    );
  });

  it('keeps one chain when several processes append at once', async () => {
    const logs = [auditLog(), auditLog(), auditLog()];
    await Promise.all(
      logs.flatMap((audit, p) =>
        Array.from({ length: 100 }, (_, i) => audit.record(event('tool.call', `p${p}`, `t${i}`))),
      ),
    );
    const verdict = await logs[0]!.verify();
    expect(verdict).toEqual({ ok: true, entries: 300 });
  });

  it('redacts and cuts what it stores', async () => {
    const audit = auditLog(undefined, (t) => t.replaceAll('hunter2-secret', '[REDACTED:PW]'));
    await audit.record({
      ...event('tool.call', 'ai'),
      details: { args: 'use hunter2-secret please', flood: 'x'.repeat(5000) },
    });
    const [entry] = (await audit.list({})).entries;
    expect(entry!.details.args).toBe('use [REDACTED:PW] please');
    expect(String(entry!.details.flood).length).toBeLessThan(maxDetailChars + 40);
  });

  it('names the first entry after a removed one, an altered one, and removed newest entries', async () => {
    const audit = auditLog();
    for (let i = 0; i < 6; i++) await audit.record(event('script.update', 'admin', `s${i}`));
    const redis = connections[0]!;
    const ids = (await audit.list({})).entries.map((e) => e.id).reverse();

    // Altered: the stream rewritten with one entry's target changed, chain fields kept.
    const raw = (await redis.xrange(keys.auditLog(), '-', '+')) as Array<[string, string[]]>;
    await redis.del(keys.auditLog());
    for (const [id, fields] of raw) {
      const json = id === ids[2] ? fields[1]!.replace('"s2"', '"s9"') : fields[1]!;
      await redis.xadd(keys.auditLog(), id, 'e', json, 'h', fields[3]!);
    }
    expect(await audit.verify()).toMatchObject({
      ok: false,
      id: ids[2],
      problem: 'it was altered',
    });

    await redis.del(keys.auditLog());
    for (const [id, fields] of raw) await redis.xadd(keys.auditLog(), id, ...fields);
    expect(await audit.verify()).toEqual({ ok: true, entries: 6 });

    await redis.xdel(keys.auditLog(), ids[3]!);
    expect(await audit.verify()).toMatchObject({
      ok: false,
      id: ids[4],
      problem: 'the entry before it is missing or was altered',
    });

    await redis.del(keys.auditLog());
    for (const [id, fields] of raw.slice(0, 5)) await redis.xadd(keys.auditLog(), id, ...fields);
    expect(await audit.verify()).toMatchObject({
      ok: false,
      id: ids[4],
      problem: 'entries after it were removed',
    });
  });

  it('prunes what is older than the retention and still verifies the rest', async () => {
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const audit = auditLog(() => new Date(clock));
    for (let i = 0; i < 5; i++) await audit.record(event('auth.login', 'admin', `old${i}`));
    // Stream ids are Redis's clock: wait past it, then record the entries to keep.
    await new Promise((r) => setTimeout(r, 20));
    const keepFrom = Date.now();
    await new Promise((r) => setTimeout(r, 5));
    for (let i = 0; i < 3; i++) await audit.record(event('auth.login', 'admin', `new${i}`));
    clock = keepFrom + 1_000;
    expect(await audit.prune(1_000)).toBe(5);
    expect((await audit.list({})).entries.map((e) => e.target)).toEqual(['new2', 'new1', 'new0']);
    expect(await audit.verify()).toEqual({ ok: true, entries: 3 });
  });
});
