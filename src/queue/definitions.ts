import { z } from 'zod';
import { runOutcome, scriptRunPayload } from './script-runs.js';

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
  /** Why the run failed ('' on success); jobs queued before this field existed have none. */
  error: z.string().default(''),
  output: z.string(),
  at: z.string(),
});
export type DeliveryPayload = z.infer<typeof deliveryPayload>;

/**
 * Every queue Steward uses, with the schema of its job payload and result. Producers validate
 * before enqueueing and workers validate again on receipt: a job written by an older or foreign
 * process must never reach a processor unchecked. A queue with a producer of its own has its
 * contract in its own module (`script-runs.ts`).
 */
export const queues = {
  scriptRuns: { name: 'script-runs', payload: scriptRunPayload, result: runOutcome },
  scheduleRuns: { name: 'schedule-runs', payload: scheduleRunPayload, result: z.unknown() },
  deliveries: { name: 'deliveries', payload: deliveryPayload, result: z.unknown() },
} as const;

export type QueueKey = keyof typeof queues;
export type PayloadOf<K extends QueueKey> = z.infer<(typeof queues)[K]['payload']>;
export type ResultOf<K extends QueueKey> = z.infer<(typeof queues)[K]['result']>;
