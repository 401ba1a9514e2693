import { scriptWorkerDeps } from '../../src/cli/compose.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startScriptRunWorker,
  type RunningScriptWorker,
} from '../../src/workers/script-runs/worker.js';
import { createScriptsHarness, type ScriptsHarness } from '../scripts/harness.js';

const secretValue = 'sk-exit-0123456789abcdef';

let h: ScriptsHarness;
let worker: RunningScriptWorker;

beforeAll(async () => {
  h = await createScriptsHarness();
  await h.services.secrets.set('EXIT_KEY', secretValue);
  await h.services.redaction.refresh();
  // A worker that does not know the secret yet (another process, before its refresh arrives).
  worker = await startScriptRunWorker(h.ctx, {
    ...scriptWorkerDeps(h.services),
    getSecret: async () => null,
    redact: (text) => text,
  });
});

afterAll(async () => {
  await worker?.close();
  await h?.close();
});

describe('POST /api/scripts/:name/test redaction at the exit', () => {
  it('redacts the answer with the API process secret set, whatever the worker knew', async () => {
    const source = `def main():\n    print("${secretValue}")\n    return {"${secretValue}": "${secretValue}"}\n`;
    expect((await h.call('POST', '/api/scripts', { name: 'exit.star', source })).statusCode).toBe(
      201,
    );
    expect((await h.call('POST', '/api/scripts/exit.star/approve')).statusCode).toBe(200);
    const res = await h.call('POST', '/api/scripts/exit.star/test', { args: {} });
    expect(res.body).not.toContain(secretValue);
    expect(res.json()).toMatchObject({
      success: true,
      result: { '[REDACTED:EXIT_KEY]': '[REDACTED:EXIT_KEY]' },
      logs: ['[REDACTED:EXIT_KEY]'],
    });
  });
});
