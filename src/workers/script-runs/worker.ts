import { answerCallers } from '../../queue/client.js';
import { queues } from '../../queue/definitions.js';
import type { Context } from '../../runtime/context.js';
import { bullPrefix, createRedis } from '../../store/redis.js';
import type { Egress } from '../../net/egress.js';
import { createFileMirror, type FileMirror } from '../../scripts/file-mirror.js';
import type { RecentChecks } from '../../scripts/recent-checks.js';
import type { ApprovalSigner } from '../../scripts/approval-signature.js';
import type { ScriptRepository } from '../../store/script-repository.js';
import { createScriptPool } from './pool.js';
import { limitByOrigin } from './origin-share.js';
import { createScriptRunProcessor } from './processor.js';
import { StartFirstWorker } from '../start-first-worker.js';

export interface ScriptRunWorkerDeps {
  store: ScriptRepository;
  /** Checks approvals against the key kept outside Redis. */
  signer: Pick<ApprovalSigner, 'check'>;
  /** Checks this process's runner passed a moment ago (`recent-checks.ts`). */
  recent?: Pick<RecentChecks, 'fresh'>;
  /** The process's egress client; each run's body budget is passed per request. */
  egress: Egress;
  /** The scripts directory the approval check reads; by default `paths.scripts`. */
  mirror?: FileMirror;
  getSecret: (name: string) => Promise<string | null>;
  redact: (text: string) => string;
  /** Counts runs dropped unrun because their caller had stopped waiting. */
  onExpired?: () => void;
}

export interface RunningScriptWorker {
  threads: number;
  close(): Promise<void>;
}

/**
 * The `script-runs` BullMQ worker of this process, backed by a Piscina pool. A job whose worker
 * process dies is not retried (maxStalledCount 0): a script may have side effects, and its
 * caller has been told it failed by then.
 */
export async function startScriptRunWorker(
  ctx: Context,
  deps: ScriptRunWorkerDeps,
): Promise<RunningScriptWorker> {
  const { config } = ctx;
  const limits = config.scripts.limits;
  const pool = createScriptPool({
    threads: config.scripts.threads,
    computeSlots: config.scripts.compute_slots,
    limits,
  });
  const processor = limitByOrigin(
    createScriptRunProcessor({
      store: deps.store,
      mirror: deps.mirror ?? createFileMirror(config.paths.scripts),
      pool,
      signer: deps.signer,
      egress: deps.egress,
      limits,
      getSecret: deps.getSecret,
      redact: deps.redact,
      log: ctx.log,
      secretEgress: config.scripts.secret_egress,
      secretValues: config.scripts.secret_values,
      ...(deps.recent ? { recent: deps.recent } : {}),
      ...(deps.onExpired ? { onExpired: deps.onExpired } : {}),
    }),
    pool.threads,
  );
  const connection = createRedis(ctx.redisTarget, 'bullmq');
  // Each outcome goes straight to its caller (at once when it waits in this process), before
  // BullMQ stores it: src/queue/client.ts.
  const answering = answerCallers(ctx.queues, processor, (err) =>
    ctx.log.warn({ err: err.message }, 'could not answer a script run'),
  );
  const worker = new StartFirstWorker(queues.scriptRuns.name, answering, {
    connection,
    prefix: bullPrefix(ctx.redisTarget.prefix),
    // One job per thread: a job fetched early would wait in Piscina's queue while its wall time
    // runs. BullMQ hands the next job back with each completion, so no round trip is lost. More
    // threads than CPUs: the compute slots keep CPU-bound runs to one per CPU.
    concurrency: pool.threads,
    // A dead worker's lock lapses within 4 s, which its callers watch for (queue/client.ts), so
    // they hear of its death within 5 s. Renewed every second: a live worker whose event loop
    // lags up to 3 s (a busy machine) keeps its lock; an expired lock fails the run.
    lockDuration: 4_000,
    lockRenewTime: 1_000,
    stalledInterval: 2_000,
    maxStalledCount: 0,
  });
  worker.on('error', (err) => ctx.log.warn({ err: err.message }, 'script-runs worker error'));
  await worker.waitUntilReady();
  return {
    threads: pool.threads,
    async close() {
      await worker.close();
      await pool.destroy();
      // BullMQ closes the connections it made, never the one it was given.
      connection.disconnect();
    },
  };
}
