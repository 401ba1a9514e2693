import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { dispositionOf, keyDispositions, prefixPattern } from '../../src/store/backup-keys.js';
import { createBackupRepository } from '../../src/store/backup-repository.js';
import { keys } from '../../src/store/keys.js';
import type { Redis } from '../../src/store/redis.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';

describe('backup key dispositions', () => {
  it('decides every key of keys.ts, and reads each kind of key back as its own', () => {
    expect(Object.keys(keyDispositions).sort()).toEqual(Object.keys(keys).sort());
    expect(dispositionOf(keys.script('a.star'))).toBe('kept');
    expect(dispositionOf(keys.scriptVersion('a.star', 'c'.repeat(40)))).toBe('kept');
    expect(dispositionOf(keys.scheduleRuns('AbC_-1'))).toBe('kept');
    // A more specific key never reads as the broader one it looks like.
    expect(dispositionOf(keys.scheduleFired('AbC_-1', 1_700_000_000_000))).toBe('left');
    expect(dispositionOf(keys.scheduleManualClaim('AbC_-1', 'job:1'))).toBe('left');
    expect(dispositionOf(keys.scheduleTick('g', 1))).toBe('left');
    expect(dispositionOf(keys.scheduleTickPending('g', 1))).toBe('left');
    expect(dispositionOf(keys.chatDelivery('run:telegram:42'))).toBe('left');
    expect(dispositionOf(keys.chatApprovalAnnounced('a.star', 'x'))).toBe('left');
    expect(dispositionOf(keys.authSession('s'))).toBe('left');
    expect(dispositionOf(keys.tokenBucket('mcp', '1.2.3.4'))).toBe('left');
    expect(dispositionOf(keys.scriptLock('a.star'))).toBe('left');
    expect(dispositionOf('bull:script-runs:id')).toBe('left');
    expect(dispositionOf(keys.auditLog())).toBe('audit');
    expect(dispositionOf(keys.schemaVersion())).toBe('meta');
    expect(dispositionOf('somebody-else:thing')).toBeNull();
  });

  it('escapes glob characters of the prefix', () => {
    expect(prefixPattern('a*b?[c]\\:')).toBe('a\\*b\\?\\[c\\]\\\\:*');
  });
});

describe('backup repository', () => {
  const redises: Redis[] = [];
  const prefixes: string[] = [];
  const open = () => {
    const prefix = uniquePrefix('backup-repo');
    prefixes.push(prefix);
    const redis = storeRedis(prefix);
    redises.push(redis);
    return redis;
  };
  afterEach(async () => {
    for (const p of prefixes.splice(0)) await dropPrefix(p);
  });
  afterAll(() => redises.forEach((r) => r.disconnect()));

  it('copies every kind of value, binary and expiring ones too, and leaves what is not data', async () => {
    const from = open();
    await from.hset(keys.script('a.star'), { name: 'a.star', source: 'x = 1\n' });
    await from.sadd(keys.scriptIndex(), 'a.star');
    await from.rpush(keys.scriptVersions('a.star'), 'c1', 'c2');
    await from.zadd(keys.scheduleRunning(), '1.5', 'm1', 'inf', 'm2');
    await from.set(keys.defaultModel(), Buffer.from([0xff, 0xfe, 0x00, 0x41]));
    await from.set(keys.chatApproval('r1'), '{"id":"r1"}', 'PX', 3_600_000);
    await from.set(keys.authSession('s1'), 'admin');
    await from.set(keys.scriptLock('a.star'), 'held');
    await from.set('bull:script-runs:meta', 'x');
    await from.set('not-ours', 'x');
    for (const e of ['{"n":1}', '{"n":2}', '{"n":3}']) {
      await from.xadd(keys.auditLog(), '*', 'e', e, 'h', `h${e}`);
    }
    await from.set(keys.auditHead(), 'h{"n":3}');
    await from.set(keys.schemaVersion(), '2');

    const repo = createBackupRepository(from);
    const snapshot = await repo.snapshot();
    expect(snapshot.method).toBe('watch');
    expect(snapshot.unknown_keys).toBe(1);
    expect(snapshot.schema.version).toBe(2);
    expect(snapshot.records.map((r) => r.key)).toEqual(
      [
        keys.chatApproval('r1'),
        keys.defaultModel(),
        keys.scheduleRunning(),
        keys.script('a.star'),
        keys.scriptVersions('a.star'),
        keys.scriptIndex(),
      ].sort(),
    );
    const approval = snapshot.records.find((r) => r.key === keys.chatApproval('r1'));
    expect(approval?.expire_at_ms).toBeGreaterThan(snapshot.at_ms + 3_590_000);
    expect(snapshot.audit.count).toBe(3);
    const pages = [];
    for await (const page of repo.auditEntries(snapshot.audit)) pages.push(...page);
    expect(pages.map((e) => e.json)).toEqual(['{"n":1}', '{"n":2}', '{"n":3}']);

    const to = open();
    await createBackupRepository(to).restore({
      replace: [],
      records: snapshot.records,
      audit: { entries: pages, head: snapshot.audit.head, anchor: '' },
      meta: { schemaVersion: 2, writtenBy: 'test', approvalKeyCheck: 'v1:x' },
    });
    expect(await to.hgetall(keys.script('a.star'))).toEqual({ name: 'a.star', source: 'x = 1\n' });
    expect(await to.lrange(keys.scriptVersions('a.star'), 0, -1)).toEqual(['c1', 'c2']);
    expect(await to.zrange(keys.scheduleRunning(), 0, -1, 'WITHSCORES')).toEqual([
      'm1',
      '1.5',
      'm2',
      'inf',
    ]);
    expect(await to.getBuffer(keys.defaultModel())).toEqual(Buffer.from([0xff, 0xfe, 0x00, 0x41]));
    expect(await to.pttl(keys.chatApproval('r1'))).toBeGreaterThan(3_500_000);
    expect(await to.exists(keys.authSession('s1'), keys.scriptLock('a.star'))).toBe(0);
    const restored = await to.xrange(keys.auditLog(), '-', '+');
    expect(restored.map(([id]) => id)).toEqual(pages.map((e) => e.id));
    expect(await to.get(keys.auditHead())).toBe('h{"n":3}');
    expect(await to.get(keys.approvalKeyCheck())).toBe('v1:x');
  });

  it('is of one point in time while writers change related keys, and pauses writers when they keep winning', async () => {
    const redis = open();
    // Filler, so that a read takes several batches and the two related keys fall in different
    // ones (schedule:s0 sorts first, schedule:s999 last).
    const fill = redis.pipeline();
    for (let i = 0; i < 1200; i++) {
      fill
        .sadd(keys.scheduleIndex(), `s${i}`)
        .hset(keys.schedule(`s${i}`), { name: `s${i}`, n: '0' });
    }
    await fill.exec();
    // A writer that always changes two keys together, as every multi-key change of Steward.
    let writing = true;
    let n = 0;
    let pace = 5;
    const writer = (async () => {
      const w = redis.duplicate();
      while (writing) {
        n++;
        await new Promise((r) => setTimeout(r, pace));
        await w
          .multi()
          .hset(keys.schedule('s0'), 'n', String(n))
          .hset(keys.schedule('s999'), 'n', String(n))
          .exec();
      }
      w.disconnect();
    })();
    try {
      const repo = createBackupRepository(redis);
      const methods: string[] = [];
      // A change every 5 ms (optimistic reads lose: writers are paused), then every second
      // (a read of these 2,400 keys wins well within that, even on a loaded machine).
      for (const options of [
        {},
        {},
        {},
        { attempts: 0 },
        { pace: 1000 },
        { pace: 1000 },
        { pace: 1000 },
      ]) {
        if ('pace' in options) pace = options.pace ?? pace;
        const snapshot = await repo.snapshot('attempts' in options ? options : {});
        const field = (id: string) => {
          const r = snapshot.records.find((x) => x.key === keys.schedule(id));
          return r?.type === 'hash' ? r.value.find(([f]) => f === 'n')?.[1] : undefined;
        };
        expect(field('s0')).toBeDefined();
        expect(field('s0')).toBe(field('s999'));
        if ('attempts' in options) expect(snapshot.method).toBe('pause');
        methods.push(`${snapshot.method}:${snapshot.attempts}`);
      }
      expect(methods.some((m) => m.startsWith('watch'))).toBe(true);
      expect(methods.some((m) => m.startsWith('pause'))).toBe(true);
      expect(n).toBeGreaterThan(10);
    } finally {
      writing = false;
      await writer;
    }
  });

  it('notices an audit chain pruned while its entries are read', async () => {
    const redis = open();
    for (let i = 0; i < 5; i++) await redis.xadd(keys.auditLog(), '*', 'e', `{}`, 'h', `h${i}`);
    const repo = createBackupRepository(redis);
    const snapshot = await repo.snapshot();
    await redis.xtrim(keys.auditLog(), 'MAXLEN', 2);
    const read = async () => {
      for await (const _ of repo.auditEntries(snapshot.audit)) {
        // reading
      }
    };
    await expect(read()).rejects.toMatchObject({ code: 'backup_refused' });
  });
});
