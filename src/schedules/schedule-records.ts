import type {
  RunTargetOf,
  ScheduleRepository,
  StoredScheduleOf,
} from '../store/schedule-repository.js';
import type { ScheduleRunRepository } from '../store/schedule-run-repository.js';
import type {
  OutputTarget,
  RunEntry,
  RunStatus,
  Schedule,
  ScheduleType,
} from './schedule-schema.js';

/**
 * The schedule repositories of src/store bound to this domain's value sets: the store encodes a
 * schedule's type, run status, output target and history entries without knowing them.
 */
export interface ScheduleValues {
  type: ScheduleType;
  status: RunStatus;
  target: OutputTarget;
  entry: RunEntry;
}

export type StoredSchedule = StoredScheduleOf<ScheduleValues>;
export type RunTarget = RunTargetOf<ScheduleValues>;
export type ScheduleStore = ScheduleRepository<ScheduleValues>;
export type RunState = ScheduleRunRepository<ScheduleValues>;

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
