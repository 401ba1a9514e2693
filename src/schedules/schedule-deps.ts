import { isAppError } from '../errors/catalogue.js';
import { createEgress } from '../net/egress.js';
import type { Context } from '../runtime/context.js';
import type { ScriptRunner } from '../scripts/script-runner.js';
import { emptyRedactor } from '../secrets/redactor.js';
import type { SchedulesDeps } from './create-schedules.js';
import type { RunAgent, RunScript } from './run-executor.js';

/** What the rest of the process offers schedules; each piece is optional until it exists. */
export interface ScheduleWiring {
  scripts?: ScriptRunner;
  scriptExists?: (name: string) => Promise<boolean>;
  redact?: (text: string) => string;
  runAgent?: RunAgent;
}

/**
 * The script runner refuses unknown, unapproved and modified scripts by throwing; a schedule
 * records those refusals as a failed run with the reason.
 */
export function scriptRunnerAdapter(runner: ScriptRunner): RunScript {
  return async (name, args) => {
    const started = Date.now();
    try {
      return await runner.run({ name, args, origin: 'schedule' });
    } catch (err) {
      if (!isAppError(err)) throw err;
      return { success: false, error: err.message, duration_ms: Date.now() - started, logs: [] };
    }
  };
}

export function createScheduleDeps(ctx: Context, wiring: ScheduleWiring = {}): SchedulesDeps {
  const { config } = ctx;
  return {
    redis: ctx.redis,
    queues: ctx.queues,
    config,
    log: ctx.log,
    egress: createEgress({
      allow: config.egress.allow,
      timeoutMs: config.egress.timeout,
      maxBodyBytes: config.egress.max_body_bytes,
      maxRedirects: config.egress.max_redirects,
    }),
    redact: wiring.redact ?? ((text) => emptyRedactor.redact(text)),
    ...(wiring.scripts ? { runScript: scriptRunnerAdapter(wiring.scripts) } : {}),
    ...(wiring.scriptExists ? { scriptExists: wiring.scriptExists } : {}),
    ...(wiring.runAgent ? { runAgent: wiring.runAgent } : {}),
  };
}
