import { randomBytes } from 'node:crypto';
import { keys } from './keys.js';
import type { Redis } from './redis.js';
import { withLock } from './with-lock.js';

/**
 * Schedules in Redis: one hash per schedule (`schedule:<id>`), an index set, and the run history
 * list (`schedule:<id>:runs`, newest first, 50 kept). Ids are 16 random bytes, base64url.
 */

/**
 * The value sets a schedule record holds, named by the domain (src/schedules/schedule-schema.ts).
 * The store encodes them into hash fields and JSON and reads them back as written.
 */
export interface ScheduleVocabulary {
  /** `type`: what a run does. */
  type: string;
  /** `last_run_status`. */
  status: string;
  /** `output_target`, stored as JSON. */
  target: object;
  /** One run history entry, stored as JSON. */
  entry: object;
}

/** What a schedule is, without its run state. */
export interface ScheduleConfigOf<V extends ScheduleVocabulary = ScheduleVocabulary> {
  name: string;
  cron_expr: string;
  type: V['type'];
  enabled: boolean;
  script_name?: string;
  prompt?: string;
  output_target?: V['target'];
  run_once: boolean;
  timezone: string;
}

/** A schedule as stored: the resource plus the bookkeeping the scheduler needs. */
export interface StoredScheduleOf<
  V extends ScheduleVocabulary = ScheduleVocabulary,
> extends ScheduleConfigOf<V> {
  id: string;
  created_at: string;
  updated_at: string;
  /** Epoch ms since which firings are expected (set when armed); misfires count from here. */
  armed_at: number;
  /** Epoch ms of the newest fire time claimed by a run, 0 when none. */
  last_fire_at: number;
  /** Epoch ms up to which missed firings were already recorded as skipped. */
  misfire_through: number;
  last_run_at?: string;
  last_run_status?: V['status'];
  last_run_error?: string;
  last_run_output?: string;
}

/** What a run needs of its schedule: what to run, what to call it, where its output goes. */
export type RunTargetOf<V extends ScheduleVocabulary = ScheduleVocabulary> = Pick<
  StoredScheduleOf<V>,
  'id' | 'name' | 'type' | 'script_name' | 'prompt' | 'output_target'
>;

const historyLimit = 50;

const configHashFields = [
  'name',
  'cron_expr',
  'type',
  'enabled',
  'script_name',
  'prompt',
  'output_target',
  'run_once',
  'timezone',
  'created_at',
  'updated_at',
  'armed_at',
  'last_fire_at',
  'misfire_through',
] as const;

export function newScheduleId(): string {
  return randomBytes(16).toString('base64url');
}

/** Hash fields of the config part; absent optional values are deleted, not stored empty. */
export function configFields(config: Partial<ScheduleConfigOf>): {
  set: Record<string, string>;
  del: string[];
} {
  const set: Record<string, string> = {};
  const del: string[] = [];
  const put = (field: string, value: string | undefined) => {
    if (value === undefined) del.push(field);
    else set[field] = value;
  };
  if ('name' in config) put('name', config.name);
  if ('cron_expr' in config) put('cron_expr', config.cron_expr);
  if ('type' in config) put('type', config.type);
  if ('enabled' in config) put('enabled', config.enabled ? '1' : '0');
  if ('script_name' in config) put('script_name', config.script_name);
  if ('prompt' in config) put('prompt', config.prompt);
  if ('output_target' in config) {
    put('output_target', config.output_target ? JSON.stringify(config.output_target) : undefined);
  }
  if ('run_once' in config) put('run_once', config.run_once ? '1' : '0');
  if ('timezone' in config) put('timezone', config.timezone);
  return { set, del };
}

export function parseStored<V extends ScheduleVocabulary>(
  id: string,
  h: Record<string, string>,
): StoredScheduleOf<V> | null {
  if (!h.name || !h.cron_expr || !h.type || !h.created_at) return null;
  // Read back as written: the values came through the domain's types.
  const s: StoredScheduleOf<V> = {
    id,
    name: h.name,
    cron_expr: h.cron_expr,
    type: h.type as V['type'],
    enabled: h.enabled === '1',
    run_once: h.run_once === '1',
    timezone: h.timezone ?? 'UTC',
    created_at: h.created_at,
    updated_at: h.updated_at ?? h.created_at,
    armed_at: Number(h.armed_at ?? 0),
    last_fire_at: Number(h.last_fire_at ?? 0),
    misfire_through: Number(h.misfire_through ?? 0),
  };
  if (h.script_name !== undefined) s.script_name = h.script_name;
  if (h.prompt !== undefined) s.prompt = h.prompt;
  if (h.output_target) s.output_target = JSON.parse(h.output_target) as V['target'];
  if (h.last_run_at) s.last_run_at = h.last_run_at;
  if (h.last_run_status) s.last_run_status = h.last_run_status as V['status'];
  if (h.last_run_error !== undefined) s.last_run_error = h.last_run_error;
  if (h.last_run_output !== undefined) s.last_run_output = h.last_run_output;
  return s;
}

export interface ScheduleRepository<V extends ScheduleVocabulary = ScheduleVocabulary> {
  create(config: ScheduleConfigOf<V>, now?: Date): Promise<StoredScheduleOf<V>>;
  get(id: string): Promise<StoredScheduleOf<V> | null>;
  /** The schedule without its last_run_* fields (a run reads this, not the last 64 KiB output). */
  getConfig(id: string): Promise<StoredScheduleOf<V> | null>;
  list(): Promise<StoredScheduleOf<V>[]>;
  /**
   * Writes only `changes` (callers hold the schedule's lock); `rearm` restarts misfire
   * accounting from now (enabled, or the cron or zone changed). Null when the id is unknown.
   */
  patch(
    id: string,
    changes: Partial<ScheduleConfigOf<V>>,
    rearm: boolean,
  ): Promise<StoredScheduleOf<V> | null>;
  remove(id: string): Promise<boolean>;
  /** The run history, newest first, each entry checked by `parseEntry`. */
  runs(id: string): Promise<V['entry'][]>;
  ids(): Promise<string[]>;
  /** Runs `fn` under the schedule's cluster-wide mutex (its mutations and tick group moves). */
  withLock<T>(id: string, fn: () => Promise<T>): Promise<T>;
}

export function createScheduleRepository<V extends ScheduleVocabulary = ScheduleVocabulary>(
  redis: Redis,
  opts: { parseEntry(raw: unknown): V['entry'] },
): ScheduleRepository<V> {
  const get = async (id: string) => parseStored<V>(id, await redis.hgetall(keys.schedule(id)));

  return {
    async create(config, now = new Date()) {
      const id = newScheduleId();
      const at = now.toISOString();
      const { set } = configFields(config);
      const fields = { ...set, created_at: at, updated_at: at, armed_at: String(now.getTime()) };
      await redis.multi().hset(keys.schedule(id), fields).sadd(keys.scheduleIndex(), id).exec();
      return parseStored<V>(id, fields) as StoredScheduleOf<V>;
    },
    get,
    async getConfig(id) {
      const values = await redis.hmget(keys.schedule(id), ...configHashFields);
      const h: Record<string, string> = {};
      configHashFields.forEach((field, i) => {
        const v = values[i];
        if (v !== null && v !== undefined) h[field] = v;
      });
      return parseStored<V>(id, h);
    },
    async ids() {
      return redis.smembers(keys.scheduleIndex());
    },
    async list() {
      const ids = await redis.smembers(keys.scheduleIndex());
      const rows = await Promise.all(ids.map((id) => get(id)));
      return rows
        .filter((s): s is StoredScheduleOf<V> => s !== null)
        .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
    },
    async patch(id, changes, rearm) {
      if (!(await redis.exists(keys.schedule(id)))) return null;
      const { set, del } = configFields(changes);
      const now = new Date();
      const tx = redis.multi().hset(keys.schedule(id), {
        ...set,
        updated_at: now.toISOString(),
        ...(rearm ? { armed_at: String(now.getTime()) } : {}),
      });
      if (del.length > 0) tx.hdel(keys.schedule(id), ...del);
      await tx.exec();
      return get(id);
    },
    async remove(id) {
      const res = await redis
        .multi()
        .del(keys.schedule(id))
        .del(keys.scheduleRuns(id))
        .srem(keys.scheduleIndex(), id)
        .exec();
      return res?.[0]?.[1] === 1;
    },
    async runs(id) {
      const raw = await redis.lrange(keys.scheduleRuns(id), 0, historyLimit - 1);
      return raw.map((r) => opts.parseEntry(JSON.parse(r)));
    },
    withLock: (id, fn) => withLock(redis, keys.scheduleLock(id), fn),
  };
}

export const runHistoryLimit = historyLimit;
