import type { Job } from 'bullmq';
import type { Logger } from '../../log/logger.js';
import type { Egress } from '../../net/egress.js';
import { ScriptRefusedError } from '../../errors/script-errors.js';
import {
  failedOutcome,
  redactRunResult,
  refusedOutcome,
  runDeadline,
  scriptRunPayload,
  timedOutcome,
  type RunLimits,
  type RunOutcome,
  type UntimedOutcome,
} from '../../queue/script-runs.js';
import { checkApproval } from '../../scripts/approval.js';
import type { ApprovalSigner } from '../../scripts/approval-signature.js';
import { parseMetadata } from '../../scripts/metadata.js';
import type { FileMirror } from '../../scripts/file-mirror.js';
import type { RecentChecks } from '../../scripts/recent-checks.js';
import type { ScriptRepository } from '../../store/script-repository.js';
import { redactDeep } from '../../secrets/redact-deep.js';
import {
  createSecretEgressGuard,
  type SecretEgressPolicy,
} from '../../secrets/secret-destinations.js';
import { hashSource } from '../../contracts/script-hashes.js';
import { boundFailure } from './bound-output.js';
import { createHostHandler } from './host-calls.js';
import type { ScriptPool } from './pool.js';

export interface ProcessorDeps {
  store: Pick<ScriptRepository, 'get'>;
  /** The scripts directory: a file edited after approval refuses the run. */
  mirror: Pick<FileMirror, 'hash'>;
  pool: ScriptPool;
  /** Checks each approval's signature and the source's own hash before anything is compiled. */
  signer: Pick<ApprovalSigner, 'check'>;
  egress: Egress;
  limits: RunLimits;
  getSecret: (name: string) => Promise<string | null>;
  redact: (text: string) => string;
  log: Logger;
  /** Hears of each run dropped unrun because its caller had stopped waiting. */
  onExpired?: () => void;
  /** `scripts.secret_egress`: where a secret without `->` destinations may be sent. */
  secretEgress?: SecretEgressPolicy;
  /** `scripts.secret_values`: handles the host places (`opaque`, the default) or plain values. */
  secretValues?: 'opaque' | 'plain';
  /** Checks this process's API passed a moment ago: a run they cover is not read again. */
  recent?: Pick<RecentChecks, 'fresh'>;
}

/** After the interpreter's own deadline, how long before the thread is terminated instead. */
const abortGrace = 250;
/** Time kept for the result to travel back through Redis before the caller's deadline. */
const resultTravelMs = 500;
/** A run that could not get this long before its caller leaves is not started. */
const minRunMs = resultTravelMs + 100;

/**
 * The `script-runs` job processor: re-checks what the caller checked (the job may be old, the
 * script or its file may have changed) with the one approval rule, runs the approved source in
 * a pool thread under the limits, and returns a redacted result — BullMQ stores results in
 * Redis, where no secret may land.
 */
export function createScriptRunProcessor(deps: ProcessorDeps) {
  const { store, mirror, pool, limits, redact } = deps;

  return async function processScriptRun(job: Job): Promise<RunOutcome> {
    const payload = scriptRunPayload.parse(job.data);
    const { name } = payload;
    const callerDeadline = payload.callerDeadline ?? job.timestamp + runDeadline(limits);
    if (Date.now() >= callerDeadline - minRunMs) {
      // Its caller has stopped waiting (or is about to): a run now would have nobody to tell.
      deps.onExpired?.();
      return timedOutcome(failedOutcome('script run expired before a worker picked it up'), 0);
    }
    // A check of this very record that this process passed a moment ago stands for the reads
    // (`recent-checks.ts`); otherwise the file is read beside the record's round trip.
    const recent = deps.recent?.fresh(name, payload.hash, !payload.allowUnapproved);
    const [record, fileHash] = recent
      ? [recent.record, recent.fileHash ?? null]
      : await Promise.all([
          store.get(name),
          payload.allowUnapproved ? null : mirror.hash(name).catch(() => null),
        ]);
    if (!record) return refusedOutcome('not_found', `script ${name} not found`);
    if (record.hash !== payload.hash) {
      return refusedOutcome('modified', `script ${name} changed since the run was requested`);
    }
    if (!payload.allowUnapproved) {
      const verdict = checkApproval(record, { fileHash });
      if (!verdict.runnable) {
        return refusedOutcome(verdict.reason, new ScriptRefusedError(name, verdict.reason).message);
      }
    }
    // Redis holds data, not authority: the source must be the text its hash names, and the
    // approval must carry the signature only a holder of the approval key can make.
    const mismatch = payload.allowUnapproved
      ? hashSource(record.source) === record.hash
        ? null
        : 'source_hash'
      : deps.signer.check(record);
    if (mismatch !== null) {
      deps.log.warn(
        { audit: true, event: 'script.run.unverified', script: name, hash: record.hash, mismatch },
        'script run refused: the stored approval or source does not verify',
      );
      return refusedOutcome('unverified', new ScriptRefusedError(name, 'unverified').message);
    }

    const started = Date.now();
    // Never past the caller's own deadline: the result must reach someone.
    const deadline = Math.min(started + limits.wall_time, callerDeadline - resultTravelMs);
    // What the run may reach is read from the verified source, never from the stored metadata,
    // which anyone who can write to Redis could widen.
    const metadata = parseMetadata(record.source);
    const declared = metadata.secrets;
    // Asked for together: one round trip (the store's connection pipelines them), not one each.
    const values = await Promise.all(declared.map((secret) => deps.getSecret(secret)));
    const secretValues = new Map(declared.map((secret, i) => [secret, values[i] ?? null]));
    const secretMode = deps.secretValues ?? 'opaque';
    const bindings = {
      destinations: metadata.secret_destinations ?? {},
      placements: metadata.secret_placements ?? {},
      policy: deps.secretEgress ?? 'bound',
    };

    const host = createHostHandler({
      egress: deps.egress,
      deadline,
      bodyBudget: limits.http_body_bytes,
      bindings,
      // Every secret of the deployment, in every encoding the redactor knows.
      scrub: redact,
      // Plain values can be anywhere in a request the script builds, so only a scan finds them.
      inspect:
        secretMode === 'plain'
          ? createSecretEgressGuard(
              [...secretValues].flatMap(([secret, value]) =>
                value === null ? [] : [{ name: secret, value }],
              ),
              bindings.destinations,
              bindings.policy,
            )
          : null,
    });
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), deadline - started + abortGrace);
    let answer: UntimedOutcome;
    try {
      answer = await pool.run(
        {
          name,
          hash: record.hash,
          source: record.source,
          args: payload.args,
          ...(payload.function !== undefined ? { function: payload.function } : {}),
          deadline,
          limits,
          declaredSecrets: declared,
          secretValues,
          secretMode,
        },
        controller.signal,
        host,
      );
    } catch (err) {
      const error = describePoolError(err, controller.signal, limits);
      answer = failedOutcome(error);
      deps.log.warn({ script: name, error }, 'script thread failed');
    } finally {
      clearTimeout(timer);
    }
    if (!answer.success) {
      // The thread bounds these already; this is the second lock before Redis stores them.
      const bounded = boundFailure(answer.error, answer.logs, limits.output_bytes);
      answer = failedOutcome(bounded.error, bounded.logs);
    }
    const outcome = timedOutcome(answer, Date.now() - started);
    return redactRunResult(outcome, (value) => redactDeep(value, redact));
  };
}

function describePoolError(err: unknown, signal: AbortSignal, limits: RunLimits): string {
  if (signal.aborted) return `script exceeded its wall time limit of ${limits.wall_time} ms`;
  const code = (err as { code?: string }).code;
  if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return `script exceeded its memory limit of ${limits.memory_mb} MiB`;
  }
  return `script thread failed: ${err instanceof Error ? err.message : String(err)}`;
}
