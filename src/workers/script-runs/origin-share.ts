import { DelayedError, type Job } from 'bullmq';

/** Of a worker's threads, the share the AI's runs (`origin: mcp`) may hold at once. */
export const aiShare = 0.75;

/**
 * Wraps the script-runs processor so that the AI's runs never hold more than `aiShare` of the
 * threads: an AI calling `script_run` in a loop leaves room for schedules and API tests, which
 * a person started. A job over the share goes back to the queue for `retryMs` (BullMQ's delayed
 * set) instead of taking a thread; its caller keeps waiting under the same deadline.
 */
export function limitByOrigin<R>(
  process: (job: Job) => Promise<R>,
  threads: number,
  retryMs = 100,
): (job: Job, token?: string) => Promise<R> {
  const cap = Math.max(1, Math.floor(threads * aiShare));
  let running = 0;
  return async (job, token) => {
    if ((job.data as { origin?: unknown }).origin !== 'mcp') return process(job);
    if (running >= cap) {
      await job.moveToDelayed(Date.now() + retryMs, token);
      throw new DelayedError();
    }
    running++;
    try {
      return await process(job);
    } finally {
      running--;
    }
  };
}
