import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors/catalogue.js';
import { ScriptNotFoundError, ScriptRefusedError } from '../../../src/errors/script-errors.js';
import { ServiceUnavailableError } from '../../../src/errors/request-errors.js';
import { ToolError } from '../../../src/errors/tool-error.js';
import { scriptTools } from '../../../src/mcp/tools/script-tools.js';
import {
  refusedOutcome,
  type RunOutcome,
  type RunRequest,
} from '../../../src/queue/script-runs.js';
import type { ScriptRunner } from '../../../src/scripts/script-runner.js';
import type { ScriptService } from '../../../src/scripts/script-service.js';
import { run, testConfig, testContext } from './tool-context.js';

/** script_run over a runner that answers `answer` (or throws it) and records its requests. */
function scriptRun(answer: RunOutcome | AppError) {
  const requests: RunRequest[] = [];
  const runner: ScriptRunner = {
    async run(request) {
      requests.push(request);
      if (answer instanceof AppError) throw answer;
      return answer;
    },
    check: async () => {
      throw new Error('not used');
    },
  };
  const tools = scriptTools({ scripts: {} as ScriptService, runner, allowlist: ['free'] });
  const tool = tools.find((t) => t.name === 'script_run');
  if (!tool) throw new Error('script_run is missing');
  const ctx = testContext(testConfig());
  return { requests, call: (args: Record<string, unknown>) => run(tool, args, ctx) };
}

describe('script_run', () => {
  it('answers the result, logs and duration of the run result, in that order', async () => {
    const { call, requests } = scriptRun({
      success: true,
      result: { n: 1 },
      duration_ms: 4,
      logs: ['hi'],
    });
    expect(await call({ name: 'free', args: [1] })).toBe(
      '{"result":{"n":1},"logs":["hi"],"duration_ms":4}',
    );
    expect(requests).toEqual([
      { name: 'free.star', args: [1], origin: 'mcp', allowUnapproved: true },
    ]);
  });

  it('turns a failed run into a tool error with its logs', async () => {
    const { call } = scriptRun({ success: false, error: 'boom', duration_ms: 1, logs: ['a'] });
    await expect(call({ name: 'other' })).rejects.toThrow(
      new ToolError('Script failed: boom\nlogs:\na'),
    );
  });

  it("throws a refused run as the catalogue's error, which the registry words for the AI", async () => {
    const modified = new ScriptRefusedError('other.star', 'modified');
    const { call } = scriptRun(refusedOutcome('modified', modified.message));
    const err = await call({ name: 'other' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScriptRefusedError);
    expect(err).toMatchObject({ code: 'script_modified', details: { script: 'other.star' } });
    await expect(call({ name: 'other' })).rejects.toThrow(/changed since it was approved/);

    const gone = scriptRun(refusedOutcome('not_found', 'script gone.star not found'));
    await expect(gone.call({ name: 'gone' })).rejects.toBeInstanceOf(ScriptNotFoundError);
  });

  it('passes other errors of the runner through (the process is stopping)', async () => {
    const stopping = new ServiceUnavailableError('Steward is shutting down');
    const { call } = scriptRun(stopping);
    await expect(call({ name: 'other' })).rejects.toBe(stopping);
  });
});
