import { describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys.js';

describe('keys', () => {
  it('names every key without the deployment prefix (ioredis adds it)', () => {
    const sample: Record<string, string> = {
      adminUser: keys.adminUser(),
      authSession: keys.authSession('sid'),
      script: keys.script('a.star'),
      scriptVersion: keys.scriptVersion('a.star', 'c0ffee'),
      schedule: keys.schedule('id'),
      scheduleFired: keys.scheduleFired('id', 1700000000000),
      scheduleTickPending: keys.scheduleTickPending('g', 5),
    };
    expect(sample).toEqual({
      adminUser: 'admin:user',
      authSession: 'auth:session:sid',
      script: 'script:a.star',
      scriptVersion: 'script:a.star:version:c0ffee',
      schedule: 'schedule:id',
      scheduleFired: 'schedule:id:fired:1700000000000',
      scheduleTickPending: 'schedules:tick:g:5:pending',
    });
  });

  it('puts the prefix on pub/sub channels itself, since ioredis does not prefix channels', () => {
    expect(keys.redactionChannel('steward:')).toBe('steward:secrets:changed');
    expect(keys.scheduleTickChannel('steward:')).toBe('steward:schedules:ticks');
  });

  it('keeps locks under lock: so they never collide with the records they guard', () => {
    expect(keys.scriptLock('a.star')).toBe('lock:script:a.star');
    expect(keys.scheduleLock('id')).toBe('lock:schedule:id');
    expect(keys.scheduleGroupLock('g')).toBe('lock:schedule-group:g');
    expect(keys.schedulerLock()).toBe('lock:schedulers');
  });

  it('ends the schedule hash key with the id, as the batch take script requires', () => {
    const [head, tail] = keys.schedule('\u0000').split('\u0000');
    expect(tail).toBe('');
    expect(head + 'x').toBe(keys.schedule('x'));
  });

  it('gives every key function a distinct name for distinct arguments', () => {
    const all = Object.entries(keys)
      .filter(([name]) => !name.endsWith('Channel'))
      .map(([, fn]) => (fn as (...a: unknown[]) => string)('a', 1));
    expect(new Set(all).size).toBe(all.length);
  });
});
