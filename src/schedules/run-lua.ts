import { callLua } from '../store/lua-commands.js';
import type { Redis } from '../store/redis.js';

/**
 * The single-run steps of run-state.ts as Lua: a manual or catch-up run's claim, the record of
 * skipped firings, and a delivery outcome written into the run's history entry. Tick runs use
 * the batch scripts of run-batches.ts, with the same per-run steps.
 */

type Lua = (...args: Array<string | number>) => Promise<unknown>;

/** The single-run scripts of `src/store/lua` (schedule-claim, -skip, -delivery). */
export function singleRunCommands(redis: Redis) {
  const call =
    (name: string): Lua =>
    (...args) =>
      callLua(redis, name, ...args);
  return {
    claim: call('scheduleClaim'),
    skip: call('scheduleSkip'),
    delivery: call('scheduleDelivery'),
  };
}
