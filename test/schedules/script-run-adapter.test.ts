import { describe, expect, it } from 'vitest';
import { ScriptNotFoundError, ScriptRefusedError } from '../../src/errors/script-errors.js';
import type { RunRequest, ScriptRunner } from '../../src/scripts/script-runner.js';
import { scriptRunnerAdapter } from '../../src/schedules/script-run-adapter.js';
import { failure } from '../support/run-result.js';

/** A script runner that records its requests and answers with `run`. */
function runner(run: (req: RunRequest) => Promise<Awaited<ReturnType<ScriptRunner['run']>>>) {
  const requests: RunRequest[] = [];
  const fake = {
    run: async (req: RunRequest) => {
      requests.push(req);
      return run(req);
    },
  } as unknown as ScriptRunner;
  return { fake, requests };
}

describe('scriptRunnerAdapter', () => {
  it('runs the script with origin schedule and passes its result through', async () => {
    const result = { success: true as const, result: { n: 1 }, duration_ms: 3, logs: ['hi'] };
    const { fake, requests } = runner(async () => result);
    expect(await scriptRunnerAdapter(fake)('report.star', { a: 1 })).toEqual(result);
    expect(requests).toEqual([{ name: 'report.star', args: { a: 1 }, origin: 'schedule' }]);
  });

  it('records a missing script as a failed run with the reason', async () => {
    const { fake } = runner(async () => {
      throw new ScriptNotFoundError('gone.star');
    });
    const r = await scriptRunnerAdapter(fake)('gone.star', {});
    expect(r).toEqual({
      success: false,
      error: 'script gone.star not found',
      duration_ms: expect.any(Number),
      logs: [],
    });
  });

  it('records unapproved and modified scripts as failed runs with the reason', async () => {
    for (const reason of ['pending', 'rejected', 'modified'] as const) {
      const { fake } = runner(async () => {
        throw new ScriptRefusedError('r.star', reason);
      });
      const r = await scriptRunnerAdapter(fake)('r.star', {});
      expect(r.success).toBe(false);
      expect(failure(r)).toBe(new ScriptRefusedError('r.star', reason).message);
    }
  });

  it('lets other errors through (the run executor records them)', async () => {
    const { fake } = runner(async () => {
      throw new Error('queue unavailable');
    });
    await expect(scriptRunnerAdapter(fake)('r.star', {})).rejects.toThrow('queue unavailable');
  });
});
