import { deliveryPayload } from '../../queue/definitions.js';
import type { RunState, ScheduleStore } from '../schedule-records.js';
import type { TargetProviderName as ProviderName } from '../../contracts/provider-names.js';
import { DeliveryError } from '../../errors/delivery-error.js';
import type { AuditLog } from '../../runtime/audit-log.js';
import type { ProviderRegistry } from './provider.js';

export interface DeliveryJob {
  data: unknown;
  attemptsMade: number;
  opts: { attempts?: number };
}

const settledStatuses = new Set(['delivered', 'failed', 'unknown']);

/**
 * Processes one `deliveries` job: sends through the provider and records the outcome in the
 * run's history entry. Transient failures are rethrown so BullMQ retries with backoff; the last
 * attempt, or a permanent failure, is recorded as `delivery: {status: 'failed'}` (`unknown` when the
 * message may have gone out). The run's own
 * result was written before delivery started, so nothing here can lose it.
 */
export function createDeliveryProcessor(deps: {
  providers: ProviderRegistry;
  runState: Pick<RunState, 'setDelivery' | 'deliveryStatus'>;
  store: Pick<ScheduleStore, 'get'>;
  /** Each delivery's outcome is recorded there too. */
  trail: Pick<AuditLog, 'record'>;
}) {
  return async (job: DeliveryJob): Promise<void> => {
    const p = deliveryPayload.parse(job.data);
    // A delivery whose outcome is recorded is never sent again, whoever enqueued it again.
    if (settledStatuses.has(await deps.runState.deliveryStatus(p.scheduleId, p.runId))) return;
    const settle = async (status: 'delivered' | 'failed' | 'unknown', error?: string) => {
      await deps.runState.setDelivery(p.scheduleId, p.runId, {
        status,
        ...(error !== undefined ? { error } : {}),
      });
      await deps.trail.record({
        actor: `schedule:${p.scheduleId}`,
        channel: 'schedule',
        action: 'schedule.deliver',
        target: `${p.provider}:${p.channelId}`,
        outcome: status === 'delivered' ? 'ok' : 'failed',
        details: { run: p.runId, status, ...(error !== undefined ? { error } : {}) },
      });
    };
    const provider = deps.providers[p.provider as ProviderName];
    if (!provider) {
      await settle('failed', 'provider not configured');
      return;
    }
    const schedule = await deps.store.get(p.scheduleId);
    try {
      await provider.deliver(p.channelId, {
        deliveryId: `${p.runId}:${p.provider}:${p.channelId}`,
        scheduleId: p.scheduleId,
        scheduleName: schedule?.name ?? p.scheduleId,
        runId: p.runId,
        status: p.status,
        error: p.error,
        output: p.output,
        at: p.at,
      });
    } catch (err) {
      const permanent = err instanceof DeliveryError && err.permanent;
      const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      if (!permanent && !lastAttempt) throw err;
      const unknown = err instanceof DeliveryError && err.details.unknown;
      await settle(unknown ? 'unknown' : 'failed', (err as Error).message);
      return;
    }
    await settle('delivered');
  };
}
