import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildCore, scriptWorkerDeps, type Core } from '../../../src/cli/compose.js';
import {
  startScriptRunWorker,
  type RunningScriptWorker,
} from '../../../src/workers/script-runs/worker.js';
import { createTestContext, type TestContext } from '../../support/app.js';
import { success } from '../../support/run-result.js';

const secretValue = 'sk-live-7f3e9a1c55d24b08';

describe('script-runs worker', () => {
  let t: TestContext;
  let core: Core;
  let worker: RunningScriptWorker;

  beforeAll(async () => {
    t = await createTestContext({ 'scripts.threads': 2 }, 'scriptworker');
    core = await buildCore(t.ctx);
    await core.secrets.set('API_KEY', secretValue);
    await core.redaction.refresh();
    worker = await startScriptRunWorker(t.ctx, scriptWorkerDeps(core));
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
  });

  const approved = async (name: string, source: string) => {
    await core.scripts.create(name, source, 'admin');
    await core.scripts.approve(name, 'admin');
  };
  const run = (name: string) => core.scriptRunner.run({ name, args: {}, origin: 'api' });

  it('runs as many threads as scripts.threads says', () => {
    expect(worker.threads).toBe(2);
  });

  it('runs an approved script from the scripts directory with its declared secret, as a handle', async () => {
    await approved(
      'key.star',
      '# @secrets: API_KEY\ndef main():\n    print("using", secrets.get("API_KEY"))\n    return {"key": secrets.get("API_KEY")}\n',
    );
    const res = await run('key.star');
    expect(res.success).toBe(true);
    expect(JSON.stringify(res)).not.toContain(secretValue);
    expect((success(res) as { key: string }).key).toBe('<secret API_KEY>');
    expect(res.logs[0]).toBe('using <secret API_KEY>');
  });

  it("keeps a thread free of the AI's runs for a person's", async () => {
    // Long enough for the person's run to start a second thread (one is kept warm) on a busy CI machine.
    await approved('doze.star', 'def main():\n    time.sleep(2.5)\n    return {"ok": True}\n');
    await approved('quick.star', 'def main():\n    return {"ok": True}\n');
    const done: string[] = [];
    const ai = [1, 2].map((i) =>
      core.scriptRunner
        .run({ name: 'doze.star', args: {}, origin: 'mcp' })
        .then((r) => done.push(`ai ${i} ${r.success}${r.success ? '' : `: ${r.error}`}`)),
    );
    await new Promise((r) => setTimeout(r, 300));
    // Of two threads the AI may hold one: the second doze waits, the person's run goes through.
    await run('quick.star').then((r) => done.push(`person ${r.success}`));
    expect(done).toEqual(['person true']);
    await Promise.all(ai);
    expect(done.slice(1).sort()).toEqual(['ai 1 true', 'ai 2 true']);
  });

  it('runs two scripts at once on its two threads', async () => {
    await approved('nap.star', 'def main():\n    time.sleep(1.5)\n    return {"ok": True}\n');
    const started = Date.now();
    const both = await Promise.all([run('nap.star'), run('nap.star')]);
    expect(both.map((r) => r.success)).toEqual([true, true]);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('answers a caller of its own process directly', async () => {
    await approved('local.star', 'def main():\n    return {"n": 1, "big": 12345678901234567890}\n');
    // From here on this process reads no reply list: only a direct answer can arrive.
    const blpop = vi
      .spyOn(Redis.prototype, 'blmpop')
      .mockImplementation(() => new Promise(() => {}));
    const answer = vi.spyOn(t.ctx.queues, 'answer');
    try {
      const res = await run('local.star');
      expect(res).toMatchObject({ success: true, result: { n: 1, big: '12345678901234567890' } });
      expect(answer).toHaveBeenCalledTimes(1);
    } finally {
      blpop.mockRestore();
      answer.mockRestore();
    }
  });
});
