import { ScriptNotFoundError, ScriptRefusedError } from '../errors/script-errors.js';
import type { ScriptRunner } from '../scripts/script-runner.js';
import { failedOutcome, timedOutcome } from '../queue/script-runs.js';
import type { RunScript } from './run-executor.js';

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
      if (!(err instanceof ScriptNotFoundError || err instanceof ScriptRefusedError)) throw err;
      return timedOutcome(failedOutcome(err.message), Date.now() - started);
    }
  };
}
