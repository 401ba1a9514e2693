import { randomBytes } from 'node:crypto';
import type { DeliveryPayload } from '../queue/definitions.js';
import type { TickOfRuns } from '../store/schedule-run-batches.js';
import { inFlightRun, type InFlight } from '../store/schedule-run-member.js';
import type { RunState, RunTarget, ScheduleStore } from './schedule-records.js';
import type { RunEntry, RunStatus } from './schedule-schema.js';
import type { ScriptRunner } from '../scripts/script-runner.js';

/**
 * The script runner's `run`: approval is checked there, and its outcome (`ok | failed | refused`)
 * comes back as it is; a refusal is recorded as a failed run with its reason.
 */
export type RunScript = ScriptRunner['run'];
/** Sends `prompt` to the AI engine and resolves with the final reply text. */
export type RunAgent = (prompt: string, timeoutMs: number, title: string) => Promise<string>;

/**
 * How a schedule's run ended (a script's or an agent's): what its history entry and the
 * schedule's last_run_* fields record.
 */
export interface ScheduleRunEnd {
  status: Exclude<RunStatus, 'running'>;
  error: string;
  output: string;
  finishedAt: string;
  /** Set when the schedule has an output target: delivery follows the run. */
  delivery?: RunEntry['delivery'];
}
/** What a run produced, before it is cleaned and recorded. */
type Ended = Pick<ScheduleRunEnd, 'status' | 'error' | 'output'>;

export interface ExecutorDeps {
  store: Pick<ScheduleStore, 'getConfig'>;
  runState: Pick<
    RunState,
    'claim' | 'inspectClaim' | 'renew' | 'takeMany' | 'finish' | 'skip' | 'expired'
  >;
  redact(text: string): string;
  runScript?: RunScript;
  runAgent?: RunAgent;
  /** Called after a run_once schedule disabled itself, to take it out of its tick group. */
  onDisabled(scheduleId: string): Promise<void>;
  enqueueDelivery(payload: DeliveryPayload): Promise<void>;
  misfireWindowMs: number;
  agentTimeoutMs: number;
  leaseMs: number;
  log: { warn(obj: object, msg: string): void };
}

export interface ScheduleRunRequest {
  scheduleId: string;
  /** Epoch ms of the cron fire time; null for a manual run. */
  fireTime: number | null;
  jobId: string;
}

export const outputCapBytes = 64 * 1024;

export function capOutput(text: string, cap = outputCapBytes): string {
  // A UTF-16 unit is at most 3 UTF-8 bytes: short texts need no count.
  if (text.length * 3 <= cap || Buffer.byteLength(text, 'utf8') <= cap) return text;
  const marker = '\n…[output truncated at 64 KiB]';
  const budget = cap - Buffer.byteLength(marker, 'utf8');
  // Cut on a character boundary: decoding a truncated buffer would leave a replacement char.
  let cut = Buffer.from(text, 'utf8').subarray(0, budget).toString('utf8');
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  return cut + marker;
}

/**
 * A script's result as the text a schedule keeps and delivers (DESIGN "schedule output as chat
 * text"). The worker wraps anything but a dict as `{"value": …}`: a string comes back as that
 * text, None as no text, any other value (a dict among them) as JSON indented by two spaces. A
 * dict whose only key is `value` reads the same as a wrapped value: the run result cannot tell
 * them apart, and showing the value is what its author meant either way.
 */
export function scriptOutputText(result: unknown): string {
  const value = isWrapped(result) ? result.value : result;
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2);
}

function isWrapped(result: unknown): result is { value: unknown } {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return false;
  const keys = Object.keys(result);
  return keys.length === 1 && keys[0] === 'value';
}

export const interruptedMessage =
  'the worker running this schedule stopped before the run finished; it was not retried so that it cannot run twice';

export function createRunExecutor(deps: ExecutorDeps) {
  const clean = (text: string) => capOutput(deps.redact(text));

  async function perform(s: RunTarget): Promise<Ended> {
    if (s.type === 'script') {
      if (!deps.runScript) throw new Error('script runs are not available in this process');
      const r = await deps.runScript({ name: s.script_name ?? '', args: {}, origin: 'schedule' });
      if (r.success) return { status: 'success', error: '', output: scriptOutputText(r.result) };
      return { status: 'error', error: r.error, output: r.logs.join('\n') };
    }
    if (!deps.runAgent) throw new Error('no AI engine is configured for agent schedules');
    const reply = await deps.runAgent(s.prompt ?? '', deps.agentTimeoutMs, `schedule:${s.name}`);
    return { status: 'success', error: '', output: reply };
  }

  async function finalize(s: RunTarget | null, run: InFlight, result: Ended) {
    const outcome: ScheduleRunEnd = {
      status: result.status,
      error: clean(result.error),
      output: clean(result.output),
      finishedAt: new Date().toISOString(),
    };
    // The finish records the delivery as pending with its payload: should this process die
    // before enqueueing it, a sweep (delivery/delivery-sweep.ts) enqueues it from there.
    let delivery: DeliveryPayload | undefined;
    if (s?.output_target) {
      outcome.delivery = { status: 'pending' };
      delivery = {
        scheduleId: run.scheduleId,
        runId: run.runId,
        provider: s.output_target.provider,
        channelId: s.output_target.channel_id,
        status: outcome.status,
        error: outcome.error,
        output: outcome.output,
        at: outcome.finishedAt,
      };
    }
    const done = await deps.runState.finish(run, outcome, delivery);
    if (done === 'run_once') await deps.onDisabled(run.scheduleId);
    if ((done === 'ok' || done === 'run_once') && delivery) await deps.enqueueDelivery(delivery);
  }

  /** A second delivery of a claimed firing: the holder is alive, finished, or died mid-run. */
  async function onDuplicate(claimed: InFlight, jobId: string): Promise<void> {
    const info = await deps.runState.inspectClaim(claimed, jobId);
    if (!info || info.deadline === null || info.deadline > Date.now()) return;
    const { run } = info;
    if (!run) return;
    await finalize(await deps.store.getConfig(run.scheduleId), run, {
      status: 'error',
      error: interruptedMessage,
      output: '',
    });
  }

  // One heartbeat for all runs in flight here: their leases are renewed every lock_ttl / 3.
  const inFlight = new Set<InFlight>();
  let heartbeat: NodeJS.Timeout | null = null;
  const renewAll = () => {
    deps.runState
      .renew([...inFlight])
      .catch((err: Error) => deps.log.warn({ err: err.message }, 'lease renewal failed'));
  };

  /** Runs a claimed run to its end: lease renewal while in flight, then finalisation. */
  async function runClaimed(s: RunTarget, run: InFlight): Promise<void> {
    inFlight.add(run);
    heartbeat ??= setInterval(renewAll, Math.max(100, Math.floor(deps.leaseMs / 3)));
    let result: Ended;
    try {
      result = await perform(s);
    } catch (err) {
      result = { status: 'error', error: (err as Error).message, output: '' };
    } finally {
      inFlight.delete(run);
      if (inFlight.size === 0 && heartbeat) {
        clearInterval(heartbeat);
        heartbeat = null;
      }
    }
    await finalize(s, run, result);
  }

  async function execute(req: ScheduleRunRequest): Promise<void> {
    const s = await deps.store.getConfig(req.scheduleId);
    if (!s) return;
    if (req.fireTime !== null) {
      if (req.fireTime <= s.misfire_through) return;
      if (Date.now() - req.fireTime > deps.misfireWindowMs) {
        const at = new Date().toISOString();
        await deps.runState.skip(s.id, req.fireTime, {
          id: randomBytes(12).toString('base64url'),
          scheduled_at: new Date(req.fireTime).toISOString(),
          started_at: null,
          finished_at: at,
          status: 'skipped',
          error: `not run: picked up ${Math.round((Date.now() - req.fireTime) / 1000)} s after its fire time, outside the misfire window`,
          output: '',
        });
        return;
      }
    }
    const run = inFlightRun({
      scheduleId: s.id,
      runId: randomBytes(12).toString('base64url'),
      fireTime: req.fireTime,
      startedAt: new Date().toISOString(),
    });
    const claim = await deps.runState.claim(run, req.jobId);
    if (claim === 'duplicate') return onDuplicate(run, req.jobId);
    if (claim !== 'claimed') return;
    await runClaimed(s, run);
  }

  return {
    execute,
    /**
     * Takes up to `max` schedules of a tick's pending set, claims their runs of `fireTime` in
     * the same round trip and starts each claimed run at once. Resolves once they have started,
     * with one promise per started run or duplicate check (its end), and how many schedules the
     * set still holds.
     */
    async takeBatch(
      tick: TickOfRuns,
      fireTime: number,
      max: number,
    ): Promise<{ started: Array<Promise<void>>; remaining: number }> {
      // Picked up too late: popped only, and the single-run path records each as skipped.
      const late = Date.now() - fireTime > deps.misfireWindowMs;
      // One draw of randomness for the batch's run ids.
      const random = randomBytes(12 * max).toString('base64url');
      const runIds = Array.from({ length: max }, (_, i) => random.slice(16 * i, 16 * i + 16));
      const taken = await deps.runState.takeMany(
        tick,
        fireTime,
        new Date().toISOString(),
        runIds,
        !late,
      );
      const started = taken.rows.flatMap(({ id, result, run, schedule }) => {
        if (result === 'late') return [execute({ scheduleId: id, fireTime, jobId: 'tick' })];
        if (result === 'claimed' && schedule) return [runClaimed(schedule, run)];
        if (result === 'duplicate') return [onDuplicate(run, 'tick')];
        return [];
      });
      return { started, remaining: taken.remaining };
    },
    /**
     * Records, once per schedule, firings of a tick that were passed over because a later one
     * was already due when the tick was picked up (`fires` newest first); the later one runs.
     */
    async skipPassedOver(ids: string[], fires: number[]): Promise<void> {
      const newest = fires[0];
      const oldest = fires[fires.length - 1];
      if (newest === undefined || oldest === undefined) return;
      const at = new Date().toISOString();
      const error = `${fires.length} firing(s) from ${new Date(oldest).toISOString()} to ${new Date(newest).toISOString()} were picked up after a later firing was due; only the latest ran`;
      for (let i = 0; i < ids.length; i += 256) {
        await Promise.all(
          ids.slice(i, i + 256).map((id) =>
            deps.runState.skip(id, newest, {
              id: randomBytes(12).toString('base64url'),
              scheduled_at: new Date(newest).toISOString(),
              started_at: null,
              finished_at: at,
              status: 'skipped',
              error,
              output: '',
            }),
          ),
        );
      }
    },
    /** Ends runs whose lease expired (their worker died); safe to call from every replica. */
    async sweepExpired(now = Date.now()): Promise<number> {
      let ended = 0;
      for (const { run } of await deps.runState.expired(now)) {
        await finalize(await deps.store.getConfig(run.scheduleId), run, {
          status: 'error',
          error: interruptedMessage,
          output: '',
        });
        ended++;
      }
      return ended;
    },
  };
}

export type RunExecutor = ReturnType<typeof createRunExecutor>;
