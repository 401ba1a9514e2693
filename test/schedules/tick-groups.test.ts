import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredSchedule } from '../../src/schedules/schedule-records.js';
import {
  createTickGroups,
  groupKeyOf,
  tickJobName,
  tickSchedulerId,
  wantedGroup,
  type TickGroups,
} from '../../src/schedules/tick-groups.js';
import { keys } from '../../src/store/keys.js';
import { createTickRepository } from '../../src/store/tick-repository.js';
import { createTestContext, type TestContext } from '../support/app.js';

function schedule(id: string, cron: string, extra: Partial<StoredSchedule> = {}): StoredSchedule {
  return {
    id,
    name: id,
    cron_expr: cron,
    type: 'script',
    enabled: true,
    script_name: `${id}.star`,
    run_once: false,
    timezone: 'UTC',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    armed_at: 0,
    last_fire_at: 0,
    misfire_through: 0,
    ...extra,
  };
}

describe('group keys', () => {
  it('are a 16-character hash of the (pattern, zone) pair', () => {
    const g = groupKeyOf('0 8 * * *', 'UTC');
    expect(g).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(groupKeyOf('0 8 * * *', 'UTC')).toBe(g);
    expect(groupKeyOf('0 8 * * *', 'Europe/Paris')).not.toBe(g);
    expect(groupKeyOf('0 9 * * *', 'UTC')).not.toBe(g);
    expect(tickSchedulerId(g)).toBe(`tick:${g}`);
  });

  it('an enabled schedule wants the group of its pattern and zone; a disabled or deleted one none', () => {
    const s = schedule('a', '*/5 * * * *', { timezone: 'Asia/Tokyo' });
    expect(wantedGroup(s)).toEqual({
      group: groupKeyOf('*/5 * * * *', 'Asia/Tokyo'),
      pattern: '*/5 * * * *',
      tz: 'Asia/Tokyo',
    });
    expect(wantedGroup({ ...s, enabled: false })).toBeNull();
    expect(wantedGroup(null)).toBeNull();
  });
});

describe('tick groups on Redis and BullMQ', () => {
  let t: TestContext;
  let groups: TickGroups;
  const scheduler = (cron: string, tz = 'UTC') =>
    t.ctx.queues.queue('scheduleRuns').getJobScheduler(tickSchedulerId(groupKeyOf(cron, tz)));

  beforeAll(async () => {
    t = await createTestContext({}, 'tickgroups');
    groups = createTickGroups({
      ticks: createTickRepository(t.ctx.redis),
      queue: t.ctx.queues.queue('scheduleRuns'),
    });
  });
  afterAll(() => t.close());

  it('the first member creates the tick scheduler; the last one leaving removes it', async () => {
    const cron = '0 1 * * *';
    expect(await groups.place('a', schedule('a', cron))).toBe('upserted');
    const js = await scheduler(cron);
    expect(js).toMatchObject({
      key: tickSchedulerId(groupKeyOf(cron, 'UTC')),
      pattern: cron,
      tz: 'UTC',
    });
    expect(js?.template?.data).toEqual({
      group: groupKeyOf(cron, 'UTC'),
      pattern: cron,
      tz: 'UTC',
    });
    expect(js?.name).toBe(tickJobName);
    expect(await groups.place('b', schedule('b', cron))).toBe('same');
    expect((await groups.members(groupKeyOf(cron, 'UTC'))).sort()).toEqual(['a', 'b']);
    expect(await groups.place('a', null)).toBe('same');
    expect(await scheduler(cron)).toBeTruthy();
    expect(await groups.place('b', schedule('b', cron, { enabled: false }))).toBe('removed');
    expect(await scheduler(cron)).toBeFalsy();
    expect(await t.ctx.redis.hget(keys.scheduleGroupSpecs(), groupKeyOf(cron, 'UTC'))).toBeNull();
    expect((await groups.assignments()).has('b')).toBe(false);
  });

  it('moving a schedule to another pattern or zone moves its membership and ticks', async () => {
    expect(await groups.place('m', schedule('m', '0 2 * * *'))).toBe('upserted');
    expect(await groups.place('m', schedule('m', '0 2 * * *', { timezone: 'Europe/Paris' }))).toBe(
      'upserted',
    );
    expect(await scheduler('0 2 * * *')).toBeFalsy();
    expect(await scheduler('0 2 * * *', 'Europe/Paris')).toBeTruthy();
    expect((await groups.assignments()).get('m')).toBe(groupKeyOf('0 2 * * *', 'Europe/Paris'));
    // Placing it where it already is changes nothing.
    expect(await groups.place('m', schedule('m', '0 2 * * *', { timezone: 'Europe/Paris' }))).toBe(
      'same',
    );
  });

  it('ensureTick puts back a scheduler that is missing while the group has members', async () => {
    const cron = '0 3 * * *';
    const group = groupKeyOf(cron, 'UTC');
    await groups.place('r', schedule('r', cron));
    await t.ctx.queues.queue('scheduleRuns').removeJobScheduler(tickSchedulerId(group));
    expect(await groups.ensureTick(group, { group, pattern: cron, tz: 'UTC' })).toBe('upserted');
    expect(await scheduler(cron)).toBeTruthy();
    // Without a spec it is left to the joiner (a non-empty group is never removed).
    expect(await groups.ensureTick(group, null)).toBe('same');
  });

  it('concurrent joins of a new group make exactly one scheduler', async () => {
    const cron = '0 4 * * *';
    // Joiners of one process share the creation, so each of them reports it.
    const changes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => groups.place(`c${i}`, schedule(`c${i}`, cron))),
    );
    expect(new Set(changes)).toEqual(new Set(['upserted']));
    const all = await t.ctx.queues.queue('scheduleRuns').getJobSchedulers(0, -1);
    expect(all.filter((js) => js.key === tickSchedulerId(groupKeyOf(cron, 'UTC')))).toHaveLength(1);
    expect(await groups.members(groupKeyOf(cron, 'UTC'))).toHaveLength(20);
  });
});
