import { afterAll, describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import { createRedis } from '../../src/store/redis.js';
import { createTickRepository } from '../../src/store/tick-repository.js';
import { dropPrefix, storeRedis, testRedisUrl, uniquePrefix } from '../support/redis.js';

describe('tick repository', () => {
  const prefix = uniquePrefix('ticks');
  const redis = storeRedis(prefix);
  const ticks = createTickRepository(redis);
  afterAll(async () => {
    await dropPrefix(prefix);
    redis.disconnect();
  });

  const spec = (group: string) => ({ group, pattern: `0 ${group.length} * * *`, tz: 'UTC' });

  it('moves a schedule between groups, recording its group and the group spec', async () => {
    await ticks.move('s1', null, spec('a'));
    await ticks.move('s2', null, spec('a'));
    expect(await ticks.groupOf('s1')).toBe('a');
    expect(await ticks.size('a')).toBe(2);
    expect(await ticks.specOf('a')).toEqual(spec('a'));
    await ticks.move('s1', 'a', spec('bb'));
    expect(await ticks.members('a')).toEqual(['s2']);
    expect(await ticks.members('bb')).toEqual(['s1']);
    expect(await ticks.assignments()).toEqual(
      new Map([
        ['s1', 'bb'],
        ['s2', 'a'],
      ]),
    );
    await ticks.move('s1', 'bb', null);
    expect(await ticks.groupOf('s1')).toBeNull();
    expect(await ticks.size('bb')).toBe(0);
    expect(await ticks.specOf('nope')).toBeNull();
  });

  it('forgets a group spec only once its set is empty', async () => {
    await ticks.move('f1', null, spec('ff'));
    await ticks.forgetIfEmpty('ff');
    expect(await ticks.specOf('ff')).toEqual(spec('ff'));
    await ticks.move('f1', 'ff', null);
    await ticks.forgetIfEmpty('ff');
    expect(await ticks.specOf('ff')).toBeNull();
  });

  it('claims a tick once and lists the group members in its pending set', async () => {
    await ticks.move('t1', null, spec('tt'));
    await ticks.move('t2', null, spec('tt'));
    expect(await ticks.claimTick(spec('tt'), 1000, 'me', 60_000)).toBe(2);
    expect(await ticks.claimTick(spec('tt'), 1000, 'other', 60_000)).toBe(-1);
    expect((await ticks.pending('tt', 1000)).sort()).toEqual(['t1', 't2']);
    expect(await redis.pttl(keys.scheduleTickPending('tt', 1000))).toBeGreaterThan(0);
    expect(await redis.get(keys.scheduleTick('tt', 1000))).toBe('me');
    // An empty group claims its tick but lists nothing.
    expect(await ticks.claimTick(spec('empty'), 1000, 'me', 60_000)).toBe(0);
    expect(await redis.exists(keys.scheduleTickPending('empty', 1000))).toBe(0);
  });

  it('keeps a claimed tick open for a sweep, handing it to one sweeper per wait', async () => {
    await ticks.move('o1', null, spec('oo'));
    const claimedAt = Date.now();
    expect(await ticks.claimTick(spec('oo'), 2000, 'me', 60_000)).toBe(1);
    // Not yet overdue.
    expect(await ticks.overdueTicks(claimedAt - 10_000)).toEqual([]);
    // Sweeps at time T with a grace of 1 s ask for what is older than T - 1 s.
    // (Ticks of the tests above are open too: only this one is looked at.)
    const sweep = async (at: number) =>
      (await ticks.overdueTicks(at - 1000, at)).filter((t) => t.tick.group === 'oo');
    const later = claimedAt + 5000;
    const due = [{ tick: spec('oo'), fireTime: 2000 }];
    const [first, second] = await Promise.all([sweep(later), sweep(later)]);
    expect([first, second].sort((a, b) => b.length - a.length)).toEqual([due, []]);
    // Handed out again only a whole grace later.
    expect(await sweep(later + 999)).toEqual([]);
    expect(await sweep(later + 1000)).toEqual(due);
  });

  it('announces on the prefixed tick channel', async () => {
    expect(ticks.channel).toBe(`${prefix}schedules:ticks`);
    const subscriber = createRedis({ url: testRedisUrl(), prefix }, 'subscriber');
    try {
      const got = new Promise<string>((resolve) => subscriber.on('message', (_c, m) => resolve(m)));
      await subscriber.subscribe(ticks.channel);
      await ticks.announce({ group: 'g', fireTime: 1 });
      expect(JSON.parse(await got)).toEqual({ group: 'g', fireTime: 1 });
    } finally {
      subscriber.disconnect();
    }
  });

  it('the group and reconcile locks run their sections one at a time', async () => {
    let inside = 0;
    let most = 0;
    const section = async () => {
      inside++;
      most = Math.max(most, inside);
      await new Promise((r) => setTimeout(r, 20));
      inside--;
    };
    await Promise.all([ticks.withGroupLock('l', section), ticks.withGroupLock('l', section)]);
    await Promise.all([ticks.withReconcileLock(section, {}), ticks.withReconcileLock(section, {})]);
    expect(most).toBe(1);
  });
});
