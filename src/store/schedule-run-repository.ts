import { keys } from './keys.js';
import { callLua } from './lua-commands.js';
import type { Redis } from './redis.js';
import { runHistoryLimit, type ScheduleVocabulary } from './schedule-repository.js';
import {
  createFinishBatcher,
  finishMany,
  takeMany,
  type ClaimResult,
  type TickOfRuns,
} from './schedule-run-batches.js';
import { parseMember, type InFlight } from './schedule-run-member.js';

/**
 * The atomic steps of a run's life in Redis. A run is claimed once (SET NX on its fire time),
 * leased while in flight (a ZSET scored by lease deadline, renewed by the running worker) and
 * finished once (ZREM decides who finalises, so a duplicate or a sweeper can never write twice).
 * Single runs use lua/schedule-claim-3.lua, -skip-3 and -delivery-3; tick runs claim in batches
 * and all finishes are batched (schedule-run-batches.ts), with the same steps.
 */

export type FinishResult = 'ok' | 'run_once' | 'finished' | 'gone';

export type WebhookSendState = 'claimed' | 'sending' | 'sent';

/** How a run ended, as its history entry and the schedule's last_run_* fields record it. */
export interface RunOutcomeRecord {
  status: string;
  error: string;
  output: string;
  finishedAt: string;
  /** Set when the schedule has an output target: delivery follows the run. */
  delivery?: object;
}

/** ISO text of a fire time: every run of a tick shares one. */
let lastFire: { at: number; iso: string } = { at: 0, iso: new Date(0).toISOString() };
function isoOfFire(at: number): string {
  if (lastFire.at !== at) lastFire = { at, iso: new Date(at).toISOString() };
  return lastFire.iso;
}

export function createScheduleRunRepository<V extends ScheduleVocabulary = ScheduleVocabulary>(
  redis: Redis,
  opts: { leaseMs: number; claimRetentionMs: number },
) {
  const finishOne = createFinishBatcher((items) => finishMany(redis, runHistoryLimit, items));
  const claimKey = (run: InFlight, jobId: string) =>
    run.fireTime === null
      ? keys.scheduleManualClaim(run.scheduleId, jobId)
      : keys.scheduleFired(run.scheduleId, run.fireTime);

  return {
    /** A manual or catch-up run's claim (manual runs: on their job id, having no fire time). */
    async claim(run: InFlight, jobId: string): Promise<ClaimResult> {
      const member = run.member;
      return (await callLua(
        redis,
        'scheduleClaim',
        keys.schedule(run.scheduleId),
        claimKey(run, jobId),
        keys.scheduleRunning(),
        String(opts.claimRetentionMs),
        member,
        String(Date.now() + opts.leaseMs),
        run.fireTime === null ? '' : String(run.fireTime),
      )) as ClaimResult;
    },
    /**
     * The run in flight holding the claim `run` (with `jobId`) found taken, and its lease
     * deadline (null once finished); null when the claim records no run.
     */
    async inspectClaim(
      run: InFlight,
      jobId: string,
    ): Promise<{ run: InFlight | null; deadline: number | null } | null> {
      const member = await redis.get(claimKey(run, jobId));
      if (member === null || member === 'skipped') return null;
      const score = await redis.zscore(keys.scheduleRunning(), member);
      return { run: parseMember(member), deadline: score === null ? null : Number(score) };
    },
    /** Pushes the lease deadline of runs still in flight (XX: a finished run stays gone). */
    async renew(runs: InFlight[]): Promise<void> {
      if (runs.length === 0) return;
      const deadline = Date.now() + opts.leaseMs;
      await redis.zadd(
        keys.scheduleRunning(),
        'XX',
        ...runs.flatMap((run) => [deadline, run.member]),
      );
    },
    /**
     * Pops up to `runIds.length` schedules from a tick's pending set and claims their runs of
     * `fireTime` (claim false: only pops, for firings picked up too late to run). Claimed rows
     * come with the schedule's config.
     */
    takeMany(
      tick: TickOfRuns,
      fireTime: number,
      startedAt: string,
      runIds: string[],
      claim = true,
    ) {
      return takeMany<V>(redis, opts, tick, fireTime, startedAt, runIds, claim);
    },
    /**
     * Ends a run once (batched with the other finishes of the same event-loop turn). A run with
     * an output target passes its delivery job's payload: the finish records the delivery as
     * pending (`overdueDeliveries`) until `setDelivery` writes its outcome.
     */
    async finish(
      run: InFlight,
      outcome: RunOutcomeRecord,
      deliveryPayload?: object,
    ): Promise<FinishResult> {
      const entry: Record<string, unknown> = {
        id: run.runId,
        scheduled_at: run.fireTime === null ? null : isoOfFire(run.fireTime),
        started_at: run.startedAt,
        finished_at: outcome.finishedAt,
        status: outcome.status,
        error: outcome.error,
        output: outcome.output,
      };
      if (outcome.delivery) entry.delivery = outcome.delivery;
      return (await finishOne({
        keys: [keys.schedule(run.scheduleId), keys.scheduleRuns(run.scheduleId)],
        args: [
          run.member,
          JSON.stringify(entry),
          outcome.finishedAt,
          outcome.status,
          outcome.error,
          outcome.output,
          deliveryPayload ? JSON.stringify(deliveryPayload) : '',
        ],
      })) as FinishResult;
    },
    /** Records missed firings as one `skipped` entry, once (claimed on the newest fire time). */
    async skip(scheduleId: string, newest: number, entry: V['entry']): Promise<boolean> {
      const done = await callLua(
        redis,
        'scheduleSkip',
        keys.schedule(scheduleId),
        keys.scheduleRuns(scheduleId),
        keys.scheduleFired(scheduleId, newest),
        JSON.stringify(entry),
        String(opts.claimRetentionMs),
        String(runHistoryLimit),
        String(newest),
      );
      return done === 1;
    },
    /** Writes a delivery's outcome into the run's history entry; it is pending no more. */
    async setDelivery(scheduleId: string, runId: string, delivery: object): Promise<void> {
      await callLua(
        redis,
        'scheduleDelivery',
        keys.scheduleRuns(scheduleId),
        keys.scheduleDeliveriesPending(),
        keys.scheduleDeliveryPayloads(),
        runId,
        JSON.stringify(delivery),
      );
    },
    /**
     * Claims a webhook delivery's one POST before it is sent (the claim of chat parts,
     * lua/chat-delivery-claim-1.lua, with one part): "claimed" lets the caller send; "sending"
     * means a sender began and never said how it ended; "sent" that it went out.
     */
    async claimWebhookSend(deliveryId: string, keepMs: number): Promise<WebhookSendState> {
      return (await callLua(
        redis,
        'chatDeliveryClaim',
        keys.scheduleWebhookSend(deliveryId),
        0,
        keepMs,
      )) as WebhookSendState;
    },
    async markWebhookSent(deliveryId: string): Promise<void> {
      await redis.hset(keys.scheduleWebhookSend(deliveryId), '0', 'sent');
    },
    /** The POST's outcome is known and it was not accepted: a retry may send it again. */
    async releaseWebhookSend(deliveryId: string): Promise<void> {
      await redis.hdel(keys.scheduleWebhookSend(deliveryId), '0');
    },
    /** The delivery status in the run's history entry; '' when none is recorded there. */
    async deliveryStatus(scheduleId: string, runId: string): Promise<string> {
      return (await callLua(
        redis,
        'scheduleDeliveryState',
        keys.scheduleRuns(scheduleId),
        runId,
      )) as string;
    },
    /**
     * Deliveries pending since (or last handed out at or before) `olderThan`, with their job
     * payloads as the finish stored them; each is handed to one caller per wait, so sweeps in
     * several workers share them out (lua/schedule-overdue-1.lua).
     */
    async overdueDeliveries(
      olderThan: number,
      now = Date.now(),
      limit = 100,
    ): Promise<Array<{ runId: string; payload: unknown }>> {
      const runIds = (await callLua(
        redis,
        'scheduleOverdue',
        keys.scheduleDeliveriesPending(),
        String(olderThan),
        String(now),
        String(limit),
      )) as string[];
      if (runIds.length === 0) return [];
      const payloads = await redis.hmget(keys.scheduleDeliveryPayloads(), ...runIds);
      const due: Array<{ runId: string; payload: unknown }> = [];
      for (const [i, runId] of runIds.entries()) {
        const raw = payloads[i];
        // Its outcome was written meanwhile (or the record is broken): nothing to send.
        if (raw == null) await redis.zrem(keys.scheduleDeliveriesPending(), runId);
        else due.push({ runId, payload: JSON.parse(raw) as unknown });
      }
      return due;
    },
    /** Runs whose lease ran out: their worker died or hung past the lease. */
    async expired(
      now = Date.now(),
      limit = 100,
    ): Promise<Array<{ member: string; run: InFlight }>> {
      const members = await redis.zrangebyscore(
        keys.scheduleRunning(),
        '-inf',
        now,
        'LIMIT',
        0,
        limit,
      );
      return members.flatMap((member) => {
        const run = parseMember(member);
        return run ? [{ member, run }] : [];
      });
    },
    async dropMember(member: string): Promise<void> {
      await redis.zrem(keys.scheduleRunning(), member);
    },
  };
}

export type ScheduleRunRepository<V extends ScheduleVocabulary = ScheduleVocabulary> = ReturnType<
  typeof createScheduleRunRepository<V>
>;
