import { z } from 'zod';

/**
 * Every queue Steward uses, with the schema of its job payload and result. Producers validate
 * before enqueueing and workers validate again on receipt: a job written by an older or foreign
 * process must never reach a processor unchecked.
 */
export const scriptRunPayload = z.object({
  /** Script name with `.star`, or null for code that is not stored (never used unapproved). */
  name: z.string(),
  /** The approved hash the caller checked; the worker refuses to run anything else. */
  hash: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  /** Arguments: a dict for the API test endpoint, a list for `script_run`. */
  args: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]),
  function: z.string().optional(),
  origin: z.enum(['api', 'mcp', 'schedule']),
  /** Allowlisted scripts may run without approval (tool server rule 1). */
  allowUnapproved: z.boolean().default(false),
});
export type ScriptRunPayload = z.infer<typeof scriptRunPayload>;

export const scriptRunResult = z.object({
  success: z.boolean(),
  result: z.unknown().optional(),
  error: z.string().optional(),
  /** Refusals before running (not approved, modified) carry the API error code. */
  code: z.string().optional(),
  duration_ms: z.number().int().nonnegative(),
  logs: z.array(z.string()),
});
export type ScriptRunResult = z.infer<typeof scriptRunResult>;

export const scheduleRunPayload = z.object({
  scheduleId: z.string(),
  /** The cron fire time (epoch ms) the run belongs to; null for a manual `run`. */
  fireTime: z.number().int().nullable(),
});
export type ScheduleRunPayload = z.infer<typeof scheduleRunPayload>;

export const deliveryPayload = z.object({
  scheduleId: z.string(),
  runId: z.string(),
  provider: z.string(),
  channelId: z.string(),
  status: z.enum(['success', 'error']),
  output: z.string(),
  at: z.string(),
});
export type DeliveryPayload = z.infer<typeof deliveryPayload>;

export const queues = {
  scriptRuns: { name: 'script-runs', payload: scriptRunPayload, result: scriptRunResult },
  scheduleRuns: { name: 'schedule-runs', payload: scheduleRunPayload, result: z.unknown() },
  deliveries: { name: 'deliveries', payload: deliveryPayload, result: z.unknown() },
} as const;

export type QueueKey = keyof typeof queues;
export type PayloadOf<K extends QueueKey> = z.infer<(typeof queues)[K]['payload']>;
export type ResultOf<K extends QueueKey> = z.infer<(typeof queues)[K]['result']>;
