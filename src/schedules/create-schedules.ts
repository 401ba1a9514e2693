import type { LoadedConfig } from '../config/load.js';
import type { Logger } from '../log/logger.js';
import type { Egress } from '../net/egress.js';
import type { QueueClient } from '../queue/client.js';
import type { Redis } from '../store/redis.js';
import { createScheduleRepository } from '../store/schedule-repository.js';
import { createScheduleRunRepository } from '../store/schedule-run-repository.js';
import { createTickRepository } from '../store/tick-repository.js';
import { createDeliveryProcessor } from './delivery/delivery-processor.js';
import type { ProviderRegistry } from './delivery/provider.js';
import { createDeliveryQueue, createDeliverySweep } from './delivery/delivery-queue.js';
import { createWebhookProvider } from './delivery/webhook-provider.js';
import { createRunExecutor, type RunAgent, type RunScript } from './run-executor.js';
import type { ScheduleValues } from './schedule-records.js';
import { runEntrySchema } from './schedule-schema.js';
import { createScheduleService } from './schedule-service.js';
import { createSchedulerSync } from './scheduler-sync.js';
import type { AuditLog } from '../runtime/audit-log.js';

export interface SchedulesDeps {
  redis: Redis;
  queues: QueueClient;
  config: Pick<LoadedConfig, 'schedules' | 'webhooks'>;
  log: Logger;
  egress: Egress;
  /** Deliveries are recorded in the audit log. */
  trail: Pick<AuditLog, 'record'>;
  redact(text: string): string;
  runScript?: RunScript;
  runAgent?: RunAgent;
  /** Whether the engine answers now (`run` of an agent schedule is 503 when it does not). */
  engineReachable?: () => Promise<boolean>;
  scriptExists?: (name: string) => Promise<boolean>;
  /** Delivery to the configured chat providers (`webhook` is built here from `webhooks.channels`). */
  providers?: ProviderRegistry;
}

/** Builds the schedule store, service, scheduler sync, run executor and delivery pieces. */
export function createSchedules(deps: SchedulesDeps) {
  const { redis, queues, config } = deps;
  const leaseMs = config.schedules.lock_ttl;
  const misfireWindowMs = config.schedules.misfire_window;
  const store = createScheduleRepository<ScheduleValues>(redis, {
    parseEntry: (raw) => runEntrySchema.parse(raw),
  });
  // A claim must outlive every way the same firing can come back: a stalled job, a catch-up.
  const claimRetentionMs = Math.max(misfireWindowMs, 2 * leaseMs) + 60_000;
  const runState = createScheduleRunRepository<ScheduleValues>(redis, {
    leaseMs,
    claimRetentionMs,
  });
  const ticks = createTickRepository(redis);
  const sync = createSchedulerSync({
    ticks,
    queue: queues.queue('scheduleRuns'),
    store,
    runState,
    misfireWindowMs,
    graceMs: leaseMs,
  });
  const service = createScheduleService({
    store,
    sync,
    queues,
    ...(deps.scriptExists ? { scriptExists: deps.scriptExists } : {}),
    webhookChannels: Object.keys(config.webhooks.channels),
    agentAvailable: () => deps.runAgent !== undefined,
    ...(deps.engineReachable ? { engineReachable: deps.engineReachable } : {}),
  });
  const providers: ProviderRegistry = {
    webhook: createWebhookProvider({
      egress: deps.egress,
      channels: config.webhooks.channels,
      sends: runState,
    }),
    ...deps.providers,
  };
  const deliveryQueue = createDeliveryQueue(queues, { attempts: config.webhooks.retries + 1 });
  const executor = createRunExecutor({
    store,
    runState,
    redact: deps.redact,
    ...(deps.runScript ? { runScript: deps.runScript } : {}),
    ...(deps.runAgent ? { runAgent: deps.runAgent } : {}),
    onDisabled: async (id) => {
      await sync.syncOne(id);
    },
    enqueueDelivery: deliveryQueue.enqueue,
    misfireWindowMs,
    agentTimeoutMs: config.schedules.agent_timeout,
    leaseMs,
    log: deps.log,
  });
  const deliver = createDeliveryProcessor({ providers, runState, store, trail: deps.trail });
  const sweepDeliveries = createDeliverySweep({ runState, queue: deliveryQueue, log: deps.log });
  return {
    store,
    runState,
    ticks,
    sync,
    service,
    executor,
    deliver,
    /** Enqueues again deliveries pending longer than the grace given (delivery-queue.ts). */
    sweepDeliveries,
    providers,
    leaseMs,
    claimRetentionMs,
  };
}

export type Schedules = ReturnType<typeof createSchedules>;
