import { randomBytes } from 'node:crypto';
import { keys } from '../store/keys.js';
import type { Redis } from '../store/redis.js';
import {
  runEntrySchema,
  type RunEntry,
  type RunStatus,
  type Schedule,
  type ScheduleConfig,
  type ScheduleType,
} from './schedule-schema.js';

/** A schedule as stored: the resource plus the bookkeeping the scheduler needs. */
export interface StoredSchedule extends ScheduleConfig {
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
  last_run_status?: RunStatus;
  last_run_error?: string;
  last_run_output?: string;
}

/** What a run needs of its schedule: what to run, what to call it, where its output goes. */
export type RunTarget = Pick<
  StoredSchedule,
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
export function configFields(config: Partial<ScheduleConfig>): {
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

export function parseStored(id: string, h: Record<string, string>): StoredSchedule | null {
  if (!h.name || !h.cron_expr || !h.type || !h.created_at) return null;
  const s: StoredSchedule = {
    id,
    name: h.name,
    cron_expr: h.cron_expr,
    type: h.type as ScheduleType,
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
  if (h.output_target)
    s.output_target = JSON.parse(h.output_target) as StoredSchedule['output_target'];
  if (h.last_run_at) s.last_run_at = h.last_run_at;
  if (h.last_run_status) s.last_run_status = h.last_run_status as RunStatus;
  if (h.last_run_error !== undefined) s.last_run_error = h.last_run_error;
  if (h.last_run_output !== undefined) s.last_run_output = h.last_run_output;
  return s;
}

/** The API resource; `withRun` adds the last_run_* fields (absent on create). */
export function toResource(s: StoredSchedule, withRun: boolean): Schedule {
  const out: Schedule = {
    id: s.id,
    name: s.name,
    cron_expr: s.cron_expr,
    type: s.type,
    enabled: s.enabled,
    run_once: s.run_once,
    timezone: s.timezone,
    created_at: s.created_at,
    updated_at: s.updated_at,
  };
  if (s.script_name !== undefined) out.script_name = s.script_name;
  if (s.prompt !== undefined) out.prompt = s.prompt;
  if (s.output_target) out.output_target = s.output_target;
  if (withRun) {
    if (s.last_run_at) out.last_run_at = s.last_run_at;
    if (s.last_run_status) out.last_run_status = s.last_run_status;
    out.last_run_error = s.last_run_error ?? '';
    out.last_run_output = s.last_run_output ?? '';
  }
  return out;
}

export interface ScheduleStore {
  create(config: ScheduleConfig, now?: Date): Promise<StoredSchedule>;
  get(id: string): Promise<StoredSchedule | null>;
  /** The schedule without its last_run_* fields (a run reads this, not the last 64 KiB output). */
  getConfig(id: string): Promise<StoredSchedule | null>;
  list(): Promise<StoredSchedule[]>;
  /**
   * Writes only `changes` (callers hold the schedule's lock); `rearm` restarts misfire
   * accounting from now (enabled, or the cron or zone changed). Null when the id is unknown.
   */
  patch(
    id: string,
    changes: Partial<ScheduleConfig>,
    rearm: boolean,
  ): Promise<StoredSchedule | null>;
  remove(id: string): Promise<boolean>;
  runs(id: string): Promise<RunEntry[]>;
  ids(): Promise<string[]>;
}

export function createScheduleStore(redis: Redis): ScheduleStore {
  const get = async (id: string) => parseStored(id, await redis.hgetall(keys.schedule(id)));

  return {
    async create(config, now = new Date()) {
      const id = newScheduleId();
      const at = now.toISOString();
      const { set } = configFields(config);
      const fields = { ...set, created_at: at, updated_at: at, armed_at: String(now.getTime()) };
      await redis.multi().hset(keys.schedule(id), fields).sadd(keys.scheduleIndex(), id).exec();
      return parseStored(id, fields) as StoredSchedule;
    },
    get,
    async getConfig(id) {
      const values = await redis.hmget(keys.schedule(id), ...configHashFields);
      const h: Record<string, string> = {};
      configHashFields.forEach((field, i) => {
        const v = values[i];
        if (v !== null && v !== undefined) h[field] = v;
      });
      return parseStored(id, h);
    },
    async ids() {
      return redis.smembers(keys.scheduleIndex());
    },
    async list() {
      const ids = await redis.smembers(keys.scheduleIndex());
      const rows = await Promise.all(ids.map((id) => get(id)));
      return rows
        .filter((s): s is StoredSchedule => s !== null)
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
      return raw.map((r) => runEntrySchema.parse(JSON.parse(r)));
    },
  };
}

export const runHistoryLimit = historyLimit;
