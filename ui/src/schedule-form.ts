import type { CreateSchedule, Schedule, UpdateSchedule } from './api/types.js';

/** The schedule page's form: every writable field as the inputs hold it. */
export interface ScheduleForm {
  name: string;
  type: 'script' | 'agent';
  cron_expr: string;
  timezone: string;
  script_name: string;
  prompt: string;
  provider: string;
  channel_id: string;
  enabled: boolean;
  run_once: boolean;
}

export const blankSchedule = (timezone: string): ScheduleForm => ({
  name: '',
  type: 'script',
  cron_expr: '0 7 * * *',
  timezone,
  script_name: '',
  prompt: '',
  provider: '',
  channel_id: '',
  enabled: true,
  run_once: false,
});

export function toScheduleForm(s: Schedule): ScheduleForm {
  return {
    name: s.name,
    type: s.type,
    cron_expr: s.cron_expr,
    timezone: s.timezone,
    script_name: s.script_name ?? '',
    prompt: s.prompt ?? '',
    provider: s.output_target?.provider ?? '',
    channel_id: s.output_target?.channel_id ?? '',
    enabled: s.enabled,
    run_once: s.run_once,
  };
}

function target(f: ScheduleForm) {
  return f.provider && f.channel_id
    ? { provider: f.provider as 'telegram', channel_id: f.channel_id.trim() }
    : null;
}

/** `POST /api/schedules`: the whole form. */
export function createBody(f: ScheduleForm): CreateSchedule {
  const output = target(f);
  return {
    name: f.name.trim(),
    type: f.type,
    cron_expr: f.cron_expr.trim(),
    timezone: f.timezone,
    enabled: f.enabled,
    run_once: f.run_once,
    ...(f.type === 'script' ? { script_name: f.script_name } : { prompt: f.prompt }),
    ...(output ? { output_target: output } : {}),
  };
}

/**
 * `PUT /api/schedules/:id`: only what the person changed since `base`, the schedule as the form
 * last loaded it. The server may have changed other fields meanwhile (a run-once schedule that
 * fired disabled itself); sending the form's stale copies would undo that.
 */
export function changedBody(base: ScheduleForm, f: ScheduleForm): UpdateSchedule {
  const body: UpdateSchedule = {};
  if (f.name.trim() !== base.name.trim()) body.name = f.name.trim();
  if (f.cron_expr.trim() !== base.cron_expr.trim()) body.cron_expr = f.cron_expr.trim();
  if (f.timezone !== base.timezone) body.timezone = f.timezone;
  if (f.enabled !== base.enabled) body.enabled = f.enabled;
  if (f.run_once !== base.run_once) body.run_once = f.run_once;
  if (f.type !== base.type) {
    // A schedule runs a script or a prompt, never both: the other one is cleared.
    body.type = f.type;
    Object.assign(
      body,
      f.type === 'script'
        ? { script_name: f.script_name, prompt: null }
        : { prompt: f.prompt, script_name: null },
    );
  } else if (f.type === 'script' && f.script_name !== base.script_name) {
    body.script_name = f.script_name;
  } else if (f.type === 'agent' && f.prompt !== base.prompt) {
    body.prompt = f.prompt;
  }
  const before = target(base);
  const after = target(f);
  if (JSON.stringify(before) !== JSON.stringify(after)) body.output_target = after;
  return body;
}
