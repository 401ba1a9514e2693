import { randomBytes } from 'node:crypto';
import { EngineUnavailableError } from '../errors/engine-errors.js';
import {
  BadRequestError,
  NotFoundError,
  ServiceUnavailableError,
} from '../errors/request-errors.js';
import type { QueueClient } from '../queue/client.js';
import { toScriptName } from '../contracts/script-names.js';
import type {
  CreateScheduleInput,
  RunEntry,
  Schedule,
  ScheduleConfig,
  UpdateScheduleInput,
} from './schedule-schema.js';
import { toResource, type ScheduleStore } from './schedule-records.js';
import { scheduleJobOptions, type SchedulerSync } from './scheduler-sync.js';
import { assertValidConfig, assertValidTarget } from './validate.js';

export interface ScheduleServiceDeps {
  store: ScheduleStore;
  sync: SchedulerSync;
  queues: QueueClient;
  /**
   * When given, creating or changing a script schedule, and `run` of one, answer 400 for a
   * script that does not exist.
   */
  scriptExists?: (name: string) => Promise<boolean>;
  /** Names of `webhooks.channels`: a webhook output target must name one. */
  webhookChannels?: readonly string[];
  /** Whether agent schedules can run here (an engine is configured). */
  agentAvailable?: () => boolean;
  /** Whether the configured engine answers now; `run` of an agent schedule is 503 when not. */
  engineReachable?: () => Promise<boolean>;
}

/** Every schedule operation of the API: store write, then the job scheduler, under one lock. */
export function createScheduleService(deps: ScheduleServiceDeps) {
  const { store, sync } = deps;
  const locked = <T>(id: string, fn: () => Promise<T>) => store.withLock(id, fn);

  /** The checks that need more than the config itself: the script, the output channel. */
  async function assertUsable(config: ScheduleConfig, previous?: ScheduleConfig): Promise<void> {
    assertValidTarget(config.output_target, deps.webhookChannels ?? []);
    const scriptChanged =
      !previous || previous.type !== config.type || previous.script_name !== config.script_name;
    if (config.type === 'script' && scriptChanged && deps.scriptExists) {
      if (!(await deps.scriptExists(config.script_name ?? ''))) {
        throw new BadRequestError(`body.script_name: script ${config.script_name} does not exist`);
      }
    }
  }

  const mustGet = async (id: string) => {
    const s = await store.get(id);
    if (!s) throw new NotFoundError(`schedule ${id} not found`);
    return s;
  };

  return {
    async list(): Promise<Schedule[]> {
      return (await store.list()).map((s) => toResource(s, true));
    },
    async get(id: string): Promise<Schedule> {
      return toResource(await mustGet(id), true);
    },
    async runs(id: string): Promise<RunEntry[]> {
      await mustGet(id);
      return store.runs(id);
    },
    async create(input: CreateScheduleInput): Promise<Schedule> {
      const config: ScheduleConfig = {
        name: input.name,
        cron_expr: input.cron_expr,
        type: input.type,
        enabled: input.enabled ?? true,
        run_once: input.run_once ?? false,
        timezone: input.timezone ?? 'UTC',
        ...(input.script_name !== undefined
          ? { script_name: toScriptName(input.script_name) }
          : {}),
        ...(input.prompt !== undefined ? { prompt: input.prompt } : {}),
        ...(input.output_target ? { output_target: input.output_target } : {}),
      };
      assertValidConfig(config);
      await assertUsable(config);
      const s = await store.create(config);
      const fresh = await locked(s.id, async () => {
        const current = await store.get(s.id);
        await sync.apply(s.id, current);
        return current ?? s;
      });
      return toResource(fresh, false);
    },
    async update(id: string, input: UpdateScheduleInput): Promise<Schedule> {
      return locked(id, async () => {
        const cur = await mustGet(id);
        const changes: Partial<ScheduleConfig> = {};
        for (const [field, value] of Object.entries(input) as Array<
          [keyof ScheduleConfig, unknown]
        >) {
          if (value === undefined) continue;
          let v = value === null ? undefined : value;
          if (field === 'script_name' && typeof v === 'string') v = toScriptName(v);
          (changes as Record<string, unknown>)[field] = v;
        }
        const merged: ScheduleConfig = { ...cur, ...changes };
        for (const [field, value] of Object.entries(changes)) {
          if (value === undefined) delete (merged as unknown as Record<string, unknown>)[field];
        }
        assertValidConfig(merged);
        await assertUsable(merged, cur);
        const timing = merged.cron_expr !== cur.cron_expr || merged.timezone !== cur.timezone;
        const rearm = merged.enabled && (!cur.enabled || timing);
        const next = await store.patch(id, changes, rearm);
        if (!next) throw new NotFoundError(`schedule ${id} not found`);
        await sync.apply(id, next);
        return toResource(next, true);
      });
    },
    async remove(id: string): Promise<void> {
      await locked(id, async () => {
        if (!(await store.remove(id))) throw new NotFoundError(`schedule ${id} not found`);
        await sync.apply(id, null);
      });
    },
    async setEnabled(id: string, enabled: boolean): Promise<void> {
      await locked(id, async () => {
        const cur = await mustGet(id);
        const next = await store.patch(id, { enabled }, enabled && !cur.enabled);
        await sync.apply(id, next);
      });
    },
    /** Enqueues a manual run now; the outcome lands in last_run_* (the spec's async rule). */
    async trigger(id: string): Promise<void> {
      const s = await mustGet(id);
      if (
        s.type === 'script' &&
        deps.scriptExists &&
        !(await deps.scriptExists(s.script_name ?? ''))
      ) {
        throw new BadRequestError(
          `schedule ${id} cannot run: script ${s.script_name} does not exist`,
        );
      }
      if (s.type === 'agent' && deps.agentAvailable && !deps.agentAvailable()) {
        throw new BadRequestError(
          `schedule ${id} cannot run: no AI engine is configured for agent schedules`,
        );
      }
      if (s.type === 'agent' && deps.engineReachable && !(await deps.engineReachable())) {
        throw new EngineUnavailableError(
          `schedule ${id} cannot run: the AI engine is not reachable`,
        );
      }
      if (!deps.queues.available())
        throw new ServiceUnavailableError('the scheduler queue is unavailable');
      await deps.queues.enqueue(
        'scheduleRuns',
        { scheduleId: id, fireTime: null },
        { ...scheduleJobOptions, jobId: `manual-${randomBytes(12).toString('base64url')}` },
      );
    },
  };
}

export type ScheduleService = ReturnType<typeof createScheduleService>;
