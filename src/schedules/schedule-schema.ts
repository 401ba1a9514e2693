import { z } from 'zod';
import { targetProviderNames } from '../contracts/provider-names.js';

/** Where a schedule's output goes; `channel_id` is the provider's channel or chat id. */
export const outputTargetSchema = z.object({
  provider: z.enum(targetProviderNames),
  channel_id: z.string().min(1).max(256),
});
export type OutputTarget = z.infer<typeof outputTargetSchema>;

export const scheduleTypes = ['script', 'agent'] as const;
export type ScheduleType = (typeof scheduleTypes)[number];

/** `running` while a run is in flight (DESIGN.md decision), then `success` or `error`. */
export const runStatuses = ['running', 'success', 'error'] as const;
export type RunStatus = (typeof runStatuses)[number];

/** The writable fields as a client sends them on create. */
export const createScheduleBody = z.object({
  name: z.string().trim().min(1).max(200),
  cron_expr: z.string().trim().min(1).max(200),
  type: z.enum(scheduleTypes),
  enabled: z.boolean().optional(),
  script_name: z.string().min(1).max(200).optional(),
  prompt: z
    .string()
    .min(1)
    .max(32 * 1024)
    .optional(),
  output_target: outputTargetSchema.optional(),
  run_once: z.boolean().optional(),
  timezone: z.string().min(1).max(100).optional(),
});
export type CreateScheduleInput = z.infer<typeof createScheduleBody>;

/** Any subset of the writable fields; null clears an optional one; any other field is a 400. */
export const updateScheduleBody = z.strictObject({
  name: createScheduleBody.shape.name.optional(),
  cron_expr: createScheduleBody.shape.cron_expr.optional(),
  type: z.enum(scheduleTypes).optional(),
  enabled: z.boolean().optional(),
  script_name: createScheduleBody.shape.script_name.nullable(),
  prompt: createScheduleBody.shape.prompt.nullable(),
  output_target: outputTargetSchema.nullable().optional(),
  run_once: z.boolean().optional(),
  timezone: createScheduleBody.shape.timezone,
});
export type UpdateScheduleInput = z.infer<typeof updateScheduleBody>;

/** What a schedule is, without its run state. */
export interface ScheduleConfig {
  name: string;
  cron_expr: string;
  type: ScheduleType;
  enabled: boolean;
  script_name?: string;
  prompt?: string;
  output_target?: OutputTarget;
  run_once: boolean;
  timezone: string;
}

/** The Schedule resource of the spec, plus `timezone`. */
export const scheduleSchema = z.object({
  id: z.string(),
  name: z.string(),
  cron_expr: z.string(),
  type: z.enum(scheduleTypes),
  enabled: z.boolean(),
  script_name: z.string().optional(),
  prompt: z.string().optional(),
  output_target: outputTargetSchema.optional(),
  run_once: z.boolean(),
  timezone: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  last_run_at: z.string().optional(),
  last_run_status: z.enum(runStatuses).optional(),
  last_run_error: z.string().optional(),
  last_run_output: z.string().optional(),
});
export type Schedule = z.infer<typeof scheduleSchema>;

/** A run's delivery: `unknown` when a send began and its outcome was lost (never repeated). */
export const deliveryStatusSchema = z.object({
  status: z.enum(['pending', 'delivered', 'failed', 'unknown']),
  error: z.string().optional(),
});

/** One entry of a schedule's run history (`skipped`: a misfire outside the window, not run). */
export const runEntrySchema = z.object({
  id: z.string(),
  scheduled_at: z.string().nullable(),
  started_at: z.string().nullable(),
  finished_at: z.string(),
  status: z.enum(['success', 'error', 'skipped']),
  error: z.string(),
  output: z.string(),
  delivery: deliveryStatusSchema.optional(),
});
export type RunEntry = z.infer<typeof runEntrySchema>;
