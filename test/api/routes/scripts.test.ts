import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSource } from '../../../src/contracts/script-hashes.js';
import { createScriptsHarness, type ScriptsHarness } from '../../scripts/harness.js';

const source = `# @description: Says hello
# @author: Alice
# @version: 1.0
# @secrets: API_KEY, OTHER

def main():
    return {"greeting": "hello " + args.get("who", "world")}
`;

let h: ScriptsHarness;
beforeAll(async () => {
  h = await createScriptsHarness();
});
afterAll(async () => {
  await h.close();
});

const call = (method: string, url: string, payload?: unknown) => h.call(method, url, payload);

async function create(name: string, text = source) {
  const res = await call('POST', '/api/scripts', { name, source: text });
  expect(res.statusCode).toBe(201);
  return res.json<{ name: string; status: string; hash: string }>();
}

describe('script resources', () => {
  it('creates a pending script with its hash, metadata and a file mirror', async () => {
    const body = await create('hello.star');
    expect(body).toEqual({ name: 'hello.star', status: 'pending', hash: hashSource(source) });
    expect(body.hash).toMatch(/^sha256:[0-9a-f]{64}$/);

    const list = (await call('GET', '/api/scripts')).json<{ scripts: unknown[] }>();
    const entry = list.scripts.find((s) => (s as { name: string }).name === 'hello.star');
    expect(entry).toMatchObject({
      name: 'hello.star',
      path: 'scripts/hello.star',
      hash: body.hash,
      status: 'pending',
      description: 'Says hello',
      required_secrets: ['API_KEY', 'OTHER'],
    });
    expect(entry).not.toHaveProperty('approved_at');
    expect(Date.parse((entry as { created_at: string }).created_at)).not.toBeNaN();
    expect(Date.parse((entry as { modified_at: string }).modified_at)).not.toBeNaN();

    const detail = await call('GET', '/api/scripts/hello.star');
    expect(detail.statusCode).toBe(200);
    expect(detail.json()).toEqual({
      name: 'hello.star',
      source,
      hash: body.hash,
      status: 'pending',
      metadata: {
        description: 'Says hello',
        author: 'Alice',
        version: '1.0',
        secrets: ['API_KEY', 'OTHER'],
        secret_destinations: {},
      },
      execution_history: [],
      capabilities: {
        secrets: [
          { name: 'API_KEY', destinations: [], placement: null },
          { name: 'OTHER', destinations: [], placement: null },
        ],
        hosts: [],
        modules: [],
        functions: ['main'],
        hidden_characters: [],
      },
    });
    const file = path.join(h.ctx.config.paths.scripts, 'hello.star');
    expect(readFileSync(file, 'utf8')).toBe(source);
  });

  it('refuses duplicates, bad names, syntax errors and oversized sources', async () => {
    await create('dup.star', 'result = 1\n');
    const dup = await call('POST', '/api/scripts', { name: 'dup.star', source: 'result = 2\n' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error).toBe('conflict');

    for (const name of ['no-extension', '-lead.star', 'a/b.star', `${'x'.repeat(65)}.star`]) {
      const res = await call('POST', '/api/scripts', { name, source: 'result = 1\n' });
      expect(res.statusCode, name).toBe(400);
      expect(res.json().error).toBe('invalid_request');
    }

    const bad = await call('POST', '/api/scripts', {
      name: 'broken.star',
      source: 'x = 1\ndef f(:\n  pass\n',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'invalid_script', line: 2 });
    expect(typeof bad.json().column).toBe('number');
    expect((await call('GET', '/api/scripts/broken.star')).statusCode).toBe(404);
    expect(existsSync(path.join(h.ctx.config.paths.scripts, 'broken.star'))).toBe(false);

    const huge = `x = "${'a'.repeat(256 * 1024)}"\n`;
    const big = await call('POST', '/api/scripts', { name: 'big.star', source: huge });
    // Within the body limit but over the source's own: 400 naming the field and its limit.
    expect(big.statusCode).toBe(400);
    expect(big.json()).toEqual({
      error: 'invalid_request',
      message: `source: must be at most 262144 bytes (256 KiB), got ${Buffer.byteLength(huge)}`,
    });

    const missing = await call('POST', '/api/scripts', { name: 'x.star' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toBe('invalid_request');
  });

  it('answers script_not_found for unknown scripts on every endpoint', async () => {
    const requests: Array<[string, string, unknown?]> = [
      ['GET', '/api/scripts/nope.star'],
      ['PUT', '/api/scripts/nope.star', { source: 'result = 1\n' }],
      ['DELETE', '/api/scripts/nope.star'],
      ['POST', '/api/scripts/nope.star/approve'],
      ['POST', '/api/scripts/nope.star/reject', { reason: 'no' }],
      ['POST', '/api/scripts/nope.star/test', { args: {} }],
      ['GET', '/api/scripts/nope.star/history'],
      ['GET', `/api/scripts/nope.star/history/${'a'.repeat(40)}`],
      ['GET', '/api/scripts/nope.star/diff'],
      ['POST', `/api/scripts/nope.star/restore/${'a'.repeat(40)}`],
    ];
    for (const [method, url, body] of requests) {
      const res = await call(method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error, `${method} ${url}`).toBe('script_not_found');
    }
  });

  it('answers 400 invalid_request for a name in the path that breaks the name rule', async () => {
    const commit = 'a'.repeat(40);
    for (const name of [
      'no-extension',
      '-lead.star',
      'a%2Fb.star',
      'bad%20name.star',
      `${'x'.repeat(65)}.star`,
    ]) {
      const requests: Array<[string, string, unknown?]> = [
        ['GET', `/api/scripts/${name}`],
        ['PUT', `/api/scripts/${name}`, { source: 'result = 1\n' }],
        ['DELETE', `/api/scripts/${name}`],
        ['POST', `/api/scripts/${name}/approve`],
        ['POST', `/api/scripts/${name}/reject`, { reason: 'no' }],
        ['POST', `/api/scripts/${name}/test`, { args: {} }],
        ['GET', `/api/scripts/${name}/history`],
        ['GET', `/api/scripts/${name}/history/${commit}`],
        ['GET', `/api/scripts/${name}/diff`],
        ['POST', `/api/scripts/${name}/restore/${commit}`],
      ];
      for (const [method, url, body] of requests) {
        const res = await call(method, url, body);
        expect(res.statusCode, `${method} ${url}`).toBe(400);
        expect(res.json(), `${method} ${url}`).toEqual({
          error: 'invalid_request',
          message: expect.stringMatching(/^params\.name: invalid script name /),
        });
      }
    }
    // Authentication comes first: without a token the name is never looked at.
    const anonymous = await h.app.inject({ method: 'GET', url: '/api/scripts/no-extension' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('walks the state table: approve, reject, update, idempotent approve', async () => {
    const { hash } = await create('flow.star', 'result = 1\n');

    const approved = await call('POST', '/api/scripts/flow.star/approve');
    expect(approved.statusCode).toBe(200);
    const a = approved.json();
    expect(a).toMatchObject({ name: 'flow.star', status: 'approved', approved_by: 'admin' });
    expect(Date.parse(a.approved_at)).not.toBeNaN();

    // Approving what is approved changes nothing.
    const again = await call('POST', '/api/scripts/flow.star/approve', {});
    expect(again.json()).toEqual(a);
    const entry = (await call('GET', '/api/scripts'))
      .json<{ scripts: any[] }>()
      .scripts.find((s) => s.name === 'flow.star');
    expect(entry).toMatchObject({
      status: 'approved',
      approved_at: a.approved_at,
      approved_by: 'admin',
    });

    const noReason = await call('POST', '/api/scripts/flow.star/reject', { reason: '  ' });
    expect(noReason.statusCode).toBe(400);
    expect((await call('POST', '/api/scripts/flow.star/reject')).statusCode).toBe(400);

    const rejected = await call('POST', '/api/scripts/flow.star/reject', { reason: 'too risky' });
    expect(rejected.statusCode).toBe(200);
    expect(rejected.json()).toMatchObject({
      name: 'flow.star',
      status: 'rejected',
      rejected_by: 'admin',
      reason: 'too risky',
    });
    expect(Date.parse(rejected.json().rejected_at)).not.toBeNaN();
    const twice = await call('POST', '/api/scripts/flow.star/reject', { reason: 'again' });
    expect(twice.statusCode).toBe(409);

    // Approve from rejected, then reject from approved.
    expect((await call('POST', '/api/scripts/flow.star/approve')).json().status).toBe('approved');
    expect((await call('POST', '/api/scripts/flow.star/reject', { reason: 'r' })).statusCode).toBe(
      200,
    );
    expect((await call('POST', '/api/scripts/flow.star/approve', { hash })).statusCode).toBe(200);

    const updated = await call('PUT', '/api/scripts/flow.star', { source: 'result = 2\n' });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toEqual({
      name: 'flow.star',
      status: 'pending',
      hash: hashSource('result = 2\n'),
    });
    const detail = (await call('GET', '/api/scripts/flow.star')).json();
    expect(detail.status).toBe('pending');
    const listed = (await call('GET', '/api/scripts'))
      .json<{ scripts: any[] }>()
      .scripts.find((s) => s.name === 'flow.star');
    expect(listed).not.toHaveProperty('approved_at');

    const badUpdate = await call('PUT', '/api/scripts/flow.star', { source: 'def (' });
    expect(badUpdate.statusCode).toBe(400);
    expect(badUpdate.json().error).toBe('invalid_script');
    expect((await call('GET', '/api/scripts/flow.star')).json().source).toBe('result = 2\n');
  });

  it('refuses a wildcard destination over a public suffix at create and update, with 400 invalid_script', async () => {
    for (const wildcard of ['*.com', '*.github.io']) {
      const res = await call('POST', '/api/scripts', {
        name: 'wild.star',
        source: `# @description: d\n# @secrets: KEY -> api.example.com, ${wildcard}\nresult = 1\n`,
      });
      expect(res.statusCode, wildcard).toBe(400);
      expect(res.json(), wildcard).toMatchObject({ error: 'invalid_script', line: 2, column: 37 });
      expect(res.json().message).toContain('public suffix');
    }
    const ok = `# @secrets: KEY -> *.example.org in header Authorization\nresult = 1\n`;
    await create('wild.star', ok);
    const detail = (await call('GET', '/api/scripts/wild.star')).json();
    expect(detail.metadata).toMatchObject({
      secret_destinations: { KEY: ['*.example.org'] },
      secret_placements: { KEY: 'header Authorization' },
    });
    const update = await call('PUT', '/api/scripts/wild.star', {
      source: ok.replace('*.example.org', '*.github.io'),
    });
    expect(update.statusCode).toBe(400);
    expect(update.json()).toMatchObject({ error: 'invalid_script', line: 1, column: 20 });
    expect((await call('GET', '/api/scripts/wild.star')).json().source).toBe(ok);
  });

  it('binds approval to the reviewed hash', async () => {
    const { hash } = await create('bound.star', 'result = 1\n');
    const stale = await call('POST', '/api/scripts/bound.star/approve', {
      hash: hashSource('result = 0\n'),
    });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().error).toBe('script_modified');
    expect((await call('GET', '/api/scripts/bound.star')).json().status).toBe('pending');
    const ok = await call('POST', '/api/scripts/bound.star/approve', { hash });
    expect(ok.statusCode).toBe(200);
  });

  it('keeps versions newest first, shows sources, diffs and restores', async () => {
    await create('ver.star', 'a = 1\nb = 2\nresult = a\n');
    await call('PUT', '/api/scripts/ver.star', { source: 'a = 1\nb = 3\nresult = a\n' });
    const history = (await call('GET', '/api/scripts/ver.star/history')).json<{
      versions: Array<{ commit: string; message: string; author: string; timestamp: string }>;
    }>().versions;
    expect(history).toHaveLength(2);
    expect(history.map((v) => v.message)).toEqual(['updated', 'created']);
    for (const v of history) {
      expect(v.commit).toMatch(/^[0-9a-f]{40}$/);
      expect(v.author).toBe('admin');
      expect(Date.parse(v.timestamp)).not.toBeNaN();
    }
    const [second, first] = history as [(typeof history)[0], (typeof history)[0]];
    expect(second.commit).not.toBe(first.commit);

    const old = await call('GET', `/api/scripts/ver.star/history/${first.commit}`);
    expect(old.json()).toEqual({ commit: first.commit, source: 'a = 1\nb = 2\nresult = a\n' });
    const unknown = await call('GET', `/api/scripts/ver.star/history/${'0'.repeat(40)}`);
    expect(unknown.statusCode).toBe(404);
    expect((await call('GET', '/api/scripts/ver.star/history/zzz')).statusCode).toBe(404);

    const diff = await call(
      'GET',
      `/api/scripts/ver.star/diff?from=${first.commit}&to=${second.commit}`,
    );
    expect(diff.json()).toEqual({ diff: '@@ -1,3 +1,3 @@\n a = 1\n-b = 2\n+b = 3\n result = a\n' });
    expect((await call('GET', '/api/scripts/ver.star/diff')).json()).toEqual(diff.json());
    const badDiff = await call(
      'GET',
      `/api/scripts/ver.star/diff?from=${'1'.repeat(40)}&to=${second.commit}`,
    );
    expect(badDiff.statusCode).toBe(404);

    await call('POST', '/api/scripts/ver.star/approve');
    const restored = await call('POST', `/api/scripts/ver.star/restore/${first.commit}`);
    expect(restored.statusCode).toBe(200);
    expect(restored.json()).toEqual({
      name: 'ver.star',
      status: 'pending',
      restored_from: first.commit,
    });
    const after = (await call('GET', '/api/scripts/ver.star/history')).json<{
      versions: Array<{ commit: string; message: string }>;
    }>().versions;
    expect(after).toHaveLength(3);
    expect(after[0]?.message).toBe(`restored from ${first.commit}`);
    const detail = (await call('GET', '/api/scripts/ver.star')).json();
    expect(detail.source).toBe('a = 1\nb = 2\nresult = a\n');
    expect(detail.status).toBe('pending');
    expect(readFileSync(path.join(h.ctx.config.paths.scripts, 'ver.star'), 'utf8')).toBe(
      'a = 1\nb = 2\nresult = a\n',
    );
    const missing = await call('POST', `/api/scripts/ver.star/restore/${'2'.repeat(40)}`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toBe('not_found');
  });

  it('deletes a script, its versions and its file', async () => {
    await create('gone.star', 'result = 1\n');
    const res = await call('DELETE', '/api/scripts/gone.star');
    expect(res.statusCode).toBe(204);
    expect((await call('GET', '/api/scripts/gone.star')).statusCode).toBe(404);
    expect(existsSync(path.join(h.ctx.config.paths.scripts, 'gone.star'))).toBe(false);
    const keys = await h.ctx.redis.keys(`${h.prefix}script:gone.star*`);
    expect(keys).toEqual([]);
    expect(await h.ctx.redis.sismember('scripts:index', 'gone.star')).toBe(0);
    // The name is free again.
    await create('gone.star', 'result = 2\n');
  });

  it('refuses runs of pending, rejected and modified scripts before queueing', async () => {
    await create('guard.star', 'result = 1\n');
    const pending = await call('POST', '/api/scripts/guard.star/test', { args: {} });
    expect(pending.statusCode).toBe(403);
    expect(pending.json().error).toBe('script_not_approved');

    await call('POST', '/api/scripts/guard.star/reject', { reason: 'no' });
    const rejected = await call('POST', '/api/scripts/guard.star/test', { args: {} });
    expect(rejected.statusCode).toBe(403);

    await call('POST', '/api/scripts/guard.star/approve');
    // Edited on disk after approval: refused even before the import.
    writeFileSync(path.join(h.ctx.config.paths.scripts, 'guard.star'), 'result = 666\n');
    const modified = await call('POST', '/api/scripts/guard.star/test', { args: {} });
    expect(modified.statusCode).toBe(409);
    expect(modified.json().error).toBe('script_modified');

    const report = await h.services.scripts.reloadFromDisk();
    expect(report.updated).toContain('guard.star');
    const detail = (await call('GET', '/api/scripts/guard.star')).json();
    expect(detail).toMatchObject({ status: 'pending', source: 'result = 666\n' });
    const history = (await call('GET', '/api/scripts/guard.star/history')).json();
    expect(history.versions[0]).toMatchObject({
      author: 'filesystem',
      message: 'imported from filesystem',
    });
    const still = await call('POST', '/api/scripts/guard.star/test', { args: {} });
    expect(still.statusCode).toBe(409);
    expect(still.json().error).toBe('script_modified');
    expect(await h.ctx.queues.queue('scriptRuns').count()).toBe(0);
  });
});
