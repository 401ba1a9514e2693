import type { Context } from '../../src/runtime/context.js';
import { groupKeyOf, tickSchedulerId } from '../../src/schedules/tick-groups.js';
import { keys } from '../../src/store/keys.js';

/**
 * Where schedule `id` stands in the tick group of (pattern, tz): whether it is a member (and
 * recorded as such) and that group's BullMQ tick scheduler, if any.
 */
export async function tickState(ctx: Context, id: string, pattern: string, tz = 'UTC') {
  const group = groupKeyOf(pattern, tz);
  const [member, placed, scheduler, size] = await Promise.all([
    ctx.redis.sismember(keys.scheduleGroup(group), id),
    ctx.redis.hget(keys.scheduleGroupOf(), id),
    ctx.queues.queue('scheduleRuns').getJobScheduler(tickSchedulerId(group)),
    ctx.redis.scard(keys.scheduleGroup(group)),
  ]);
  return { group, member: member === 1 && placed === group, scheduler, size };
}
