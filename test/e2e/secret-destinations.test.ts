import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCore, scriptWorkerDeps, type Core } from '../../src/cli/compose.js';
import {
  startScriptRunWorker,
  type RunningScriptWorker,
} from '../../src/workers/script-runs/worker.js';
import { startServer, type LocalServer } from '../net/local-server.js';
import { createTestContext, type TestContext } from '../support/app.js';
import { failure } from '../support/run-result.js';

const KEY = 'sk-live-7f3e9a1c55d24b08';

/**
 * Secrets leave only to the hosts their `# @secrets: NAME -> host` line names, through a real
 * worker and real HTTP servers on loopback: `bound` answers on 127.0.0.1, `other` stands for any
 * other host (reached as `localhost`).
 */
describe('secret destinations in script runs', () => {
  let t: TestContext;
  let core: Core;
  let worker: RunningScriptWorker;
  let bound: LocalServer;
  let other: LocalServer;

  beforeAll(async () => {
    other = await startServer((_req, res) => res.end('other'));
    bound = await startServer((req, res) => {
      if (req.url?.startsWith('/hop')) {
        res.statusCode = 302;
        res.setHeader('location', `http://localhost:${other.port}/leak?k=${KEY}`);
        return res.end();
      }
      return res.end('bound');
    });
    t = await createTestContext(
      {
        'egress.allow': [
          `127.0.0.1:${bound.port}`,
          `localhost:${other.port}`,
          `127.0.0.1:${other.port}`,
        ],
      },
      'secretdest',
    );
    core = await buildCore(t.ctx);
    await core.secrets.set('API_KEY', KEY);
    await core.redaction.refresh();
    worker = await startScriptRunWorker(t.ctx, scriptWorkerDeps(core));
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await bound?.close();
    await other?.close();
  });

  const header = () => `# @secrets: API_KEY -> 127.0.0.1:${bound.port}\n`;
  const approved = async (name: string, body: string, head = header()) => {
    await core.scripts.create(name, `${head}def main():\n${body}`, 'admin');
    await core.scripts.approve(name, 'admin');
  };
  const run = (name: string) => core.scriptRunner.run({ name, args: {}, origin: 'api' });

  it('sends the secret to its destination', async () => {
    await approved(
      'ok.star',
      `    r = http.get("${bound.url}/api", headers={"Authorization": "Bearer " + secrets.get("API_KEY")})\n    return {"body": r["body"]}\n`,
    );
    const res = await run('ok.star');
    expect(res).toMatchObject({ success: true, result: { body: 'bound' } });
    expect(bound.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('refuses it to any other host, in any encoding, before anything leaves', async () => {
    const before = other.requests.length;
    const sends = {
      'plain.star': `http.get("http://localhost:${other.port}/?k=" + secrets.get("API_KEY"))`,
      'upper.star': `http.post("http://localhost:${other.port}/", body=secrets.get("API_KEY").upper())`,
      'header.star': `http.get("http://localhost:${other.port}/", headers={"X-Key": secrets.get("API_KEY")})`,
      'json.star': `http.post("http://localhost:${other.port}/", body=json.encode({"k": secrets.get("API_KEY")}))`,
      'redirect.star': `http.get("${bound.url}/hop", headers={"Authorization": secrets.get("API_KEY")})`,
    };
    for (const [name, call] of Object.entries(sends)) {
      await approved(name, `    ${call}\n    return {"sent": True}\n`);
      const res = await run(name);
      expect(res.success, name).toBe(false);
      expect(failure(res), name).toMatch(
        new RegExp(
          `request to localhost:${other.port} refused: it carries secret API_KEY, which may be sent only to 127\\.0\\.0\\.1:${bound.port}`,
        ),
      );
      expect(JSON.stringify(res)).not.toContain(KEY);
    }
    expect(other.requests.length).toBe(before);
  });

  it('sends a secret declared without destinations nowhere by default', async () => {
    await approved(
      'unbound.star',
      `    http.get("${bound.url}/?k=" + secrets.get("API_KEY"))\n    return {}\n`,
      '# @secrets: API_KEY\n',
    );
    const res = await run('unbound.star');
    expect(failure(res)).toMatch(/carries secret API_KEY, which may be sent nowhere/);
  });

  it('shows the destinations in the detail, and a changed destination needs a new approval', async () => {
    const record = await core.scripts.store.get('ok.star');
    expect(record?.metadata.secrets).toEqual(['API_KEY']);
    expect(record?.metadata.secret_destinations).toEqual({ API_KEY: [`127.0.0.1:${bound.port}`] });
    const source = (record?.source ?? '').replace(`127.0.0.1:${bound.port}`, '*.attacker.example');
    await core.scripts.update('ok.star', source, 'mcp');
    const after = await core.scripts.store.get('ok.star');
    expect(after?.status).toBe('pending');
    await expect(run('ok.star')).rejects.toMatchObject({ code: 'script_modified' });
  });
});
