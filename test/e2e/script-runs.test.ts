import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptWorkerDeps } from '../../src/cli/compose.js';
import {
  startScriptRunWorker,
  type RunningScriptWorker,
} from '../../src/workers/script-runs/worker.js';
import { createScriptsHarness, type ScriptsHarness } from '../scripts/harness.js';

const secretValue = 'sk-test-0123456789abcdef';

let h: ScriptsHarness;
let worker: RunningScriptWorker;
let server: Server;
let origin = '';
const received: Array<{ method: string; url: string; type: string; body: string }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        type: String(req.headers['content-type'] ?? ''),
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.setHeader('x-answer', '42');
      if (req.url === '/big') return res.end('b'.repeat(2000));
      res.end(JSON.stringify({ path: req.url, token: req.headers.authorization ?? null }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  h = await createScriptsHarness({
    'egress.allow': ['127.0.0.1'],
    'scripts.limits.http_requests': 3,
    'scripts.limits.http_body_bytes': 3000,
  });
  // The real secret store and redactor: the value is stored encrypted, runs read it back.
  await h.services.secrets.set('API_KEY', secretValue);
  await h.services.redaction.refresh();
  worker = await startScriptRunWorker(h.ctx, scriptWorkerDeps(h.services));
});

afterAll(async () => {
  await worker?.close();
  await h?.close();
  await new Promise((resolve) => server?.close(resolve));
});

async function approved(name: string, source: string) {
  const created = await h.call('POST', '/api/scripts', { name, source });
  expect(created.statusCode, created.body).toBe(201);
  expect((await h.call('POST', `/api/scripts/${name}/approve`)).statusCode).toBe(200);
}

const test = (name: string, body: unknown = { args: {} }) =>
  h.call('POST', `/api/scripts/${name}/test`, body);

describe('POST /api/scripts/:name/test', () => {
  it('runs main() with dict args, captures logs, records history and counters', async () => {
    await approved(
      'hello.star',
      'def main():\n    print("hi", args["who"])\n    return {"greeting": "hello " + args["who"], "n": len(args)}\n',
    );
    const before = await h.services.stats.read();
    const res = await test('hello.star', { args: { who: 'bob' } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      success: true,
      result: { greeting: 'hello bob', n: 1 },
      logs: ['hi bob'],
    });
    expect(Number.isInteger(body.duration_ms)).toBe(true);

    const detail = (await h.call('GET', '/api/scripts/hello.star')).json();
    expect(detail.execution_history).toHaveLength(1);
    expect(detail.execution_history[0]).toMatchObject({ success: true });
    expect(Date.parse(detail.execution_history[0].timestamp)).not.toBeNaN();
    // /metrics caches for a few seconds; its source is the shared counter read here.
    const after = await h.services.stats.read();
    expect(after.total).toBe(before.total + 1);
    expect(after.success).toBe(before.success + 1);
  });

  it('calls a named function with keyword args; wraps non-dict results; falls back to result', async () => {
    await approved(
      'entry.star',
      'def add(a, b = 10):\n    return a + b\n\ndef main():\n    return [1, 2]\n',
    );
    const add = await test('entry.star', { args: { a: 5 }, function: 'add' });
    expect(add.json()).toMatchObject({ success: true, result: { value: 15 } });
    const main = await test('entry.star', { args: {} });
    expect(main.json()).toMatchObject({ success: true, result: { value: [1, 2] } });
    const missing = await test('entry.star', { args: {}, function: 'nope' });
    expect(missing.json()).toMatchObject({ success: false, error: 'function nope is not defined' });

    await approved('global.star', 'result = {"x": 1 + 2}\n');
    expect((await test('global.star', {})).json()).toMatchObject({ result: { x: 3 } });
    await approved('none.star', 'x = 1\n');
    expect((await test('none.star')).json()).toMatchObject({ result: { value: null } });
  });

  it('bounds a huge error text by the output limit, with a visible marker', async () => {
    await approved(
      'huge-fail.star',
      'def main():\n    print("before")\n    fail("bad response: " + "x" * 5000000)\n',
    );
    const failed = (await test('huge-fail.star')).json();
    expect(failed.success).toBe(false);
    expect(failed.logs).toEqual(['before']);
    expect(failed.error).toMatch(
      /bad response: x+… \[truncated: \d+ more bytes over the output limit\]$/,
    );
    expect(Buffer.byteLength(failed.error)).toBeLessThan(1024 * 1024 + 100);

    // Counted as sent: each chr(1) is six bytes in JSON (this answered 2.4 MB before).
    await approved('control-fail.star', 'def main():\n    fail(chr(1) * 400000)\n');
    const control = await test('control-fail.star');
    expect(control.statusCode).toBe(200);
    expect(control.body.length).toBeLessThan(1024 * 1024 + 200);
    expect(control.json().error).toMatch(/truncated/);

    await approved('huge-key.star', 'def main():\n    return {}["k" * 3000000]\n');
    const keyError = (await test('huge-key.star')).json();
    expect(keyError.error).toMatch(/truncated/);
    expect(Buffer.byteLength(keyError.error)).toBeLessThan(1024 * 1024 + 100);
  });

  it('answers failures with the error and the logs printed before it', async () => {
    await approved('fails.star', 'def main():\n    print("before")\n    return 1 // 0\n');
    const res = await test('fails.star');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.success).toBe(false);
    expect(body.error).toMatch(/fails\.star:3:\d+: .*division by zero/);
    expect(body.logs).toEqual(['before']);
    const history = (await h.call('GET', '/api/scripts/fails.star')).json().execution_history;
    expect(history[0].success).toBe(false);
  });

  it('gives declared secrets only, as handles that show no value in any output', async () => {
    await approved(
      'secret.star',
      '# @secrets: API_KEY, UNSET\ndef main():\n    key = secrets.get("API_KEY")\n    print("key is " + key)\n    return {"key": key, "unset": secrets.get("UNSET"), "names": secrets.list()}\n',
    );
    const res = await test('secret.star');
    const body = res.json();
    expect(res.body).not.toContain(secretValue);
    expect(body).toMatchObject({
      success: true,
      result: { key: '<secret API_KEY>', unset: null, names: ['API_KEY', 'UNSET'] },
      logs: ['key is <secret API_KEY>'],
    });

    await approved('sneaky.star', 'def main():\n    return secrets.get("API_KEY")\n');
    const refused = (await test('sneaky.star')).json();
    expect(refused.success).toBe(false);
    expect(refused.error).toContain('secret "API_KEY" is not declared');

    await approved(
      'leak.star',
      '# @secrets: API_KEY\ndef main():\n    fail("leaked " + secrets.get("API_KEY"))\n',
    );
    const leak = await test('leak.star');
    expect(leak.body).not.toContain(secretValue);
    expect(leak.json().error).toContain('leaked <secret API_KEY>');
  });

  it('gives a secret named like an object property its own value', async () => {
    // Secret values travel to the thread by name; a plain object keyed by "__proto__" lost it.
    await h.services.secrets.set('__proto__', 'proto-secret-value-1234');
    await h.services.secrets.set('constructor', 'ctor-secret-value-5678');
    await h.services.redaction.refresh();
    await approved(
      'proto.star',
      '# @secrets: __proto__, constructor, toString\ndef main():\n    return {"p": secrets.get("__proto__"), "c": secrets.get("constructor"), "t": secrets.get("toString")}\n',
    );
    const res = await test('proto.star');
    expect(res.json()).toMatchObject({
      success: true,
      result: { p: '<secret __proto__>', c: '<secret constructor>', t: null },
    });
  });

  it('reaches HTTP through the egress rules, within the request limit', async () => {
    await approved(
      'http.star',
      [
        'def main():',
        `    g = http.get("${origin}/get?q=1", headers = {"Authorization": "Bearer t"})`,
        `    p = http.post("${origin}/post", body = json.encode({"a": 1}))`,
        `    t = http.post("${origin}/text", body = "plain", content_type = "text/plain")`,
        '    return {"get": g["status"], "get_body": json.decode(g["body"]), "header": g["headers"]["x-answer"], "post": p["status"], "text": t["status"]}',
        '',
      ].join('\n'),
    );
    const res = (await test('http.star')).json();
    expect(res).toMatchObject({
      success: true,
      result: {
        get: 200,
        get_body: { path: '/get?q=1', token: 'Bearer t' },
        header: '42',
        post: 200,
        text: 200,
      },
    });
    expect(received.find((r) => r.url === '/post')).toMatchObject({
      method: 'POST',
      type: 'application/json',
      body: '{"a":1}',
    });
    expect(received.find((r) => r.url === '/text')).toMatchObject({
      type: 'text/plain',
      body: 'plain',
    });

    await approved(
      'many.star',
      `def main():\n    for i in range(4):\n        http.get("${origin}/n")\n`,
    );
    const many = (await test('many.star')).json();
    expect(many.success).toBe(false);
    expect(many.error).toContain('more than 3 HTTP requests');

    await approved(
      'bodies.star',
      `def main():\n    a = http.get("${origin}/big")\n    print(len(a["body"]))\n    http.get("${origin}/big")\n`,
    );
    const bodies = (await test('bodies.star')).json();
    expect(bodies).toMatchObject({ success: false, logs: ['2000'] });
    expect(bodies.error).toMatch(/http\.get: .*(limit|large|bytes)/);

    await approved('blocked.star', 'def main():\n    return http.get("http://10.255.255.1/")\n');
    const blocked = (await test('blocked.star')).json();
    expect(blocked.success).toBe(false);
    expect(blocked.error).toMatch(/http\.get: /);
  });

  it('has time, json and format host modules', async () => {
    await approved(
      'mods.star',
      'def main():\n    time.sleep(0.01)\n    return {"now": time.now(), "f": format("%s=%d", "n", 7), "j": json.encode({"k": [1, True, None]})}\n',
    );
    const res = (await test('mods.star')).json();
    expect(res.success).toBe(true);
    expect(res.result.now).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(res.result.f).toBe('n=7');
    expect(res.result.j).toBe('{"k":[1,true,null]}');
    await approved('nap.star', 'def main():\n    time.sleep(6)\n');
    expect((await test('nap.star')).json().error).toContain('time.sleep');
  });

  it("gives scripts the interpreter's json module: big ints stay exact both ways", async () => {
    await approved(
      'bigjson.star',
      [
        'def main():',
        '    big = json.decode("12345678901234567890")',
        '    return {',
        '        "encoded": json.encode(1 << 60),',
        '        "round_trip": json.encode(big),',
        '        "exact": big == 12345678901234567890,',
        '        "indented": json.encode_indent([1], indent = ""),',
        '    }',
        '',
      ].join('\n'),
    );
    const res = (await test('bigjson.star')).json();
    expect(res).toMatchObject({
      success: true,
      result: {
        encoded: '1152921504606846976',
        round_trip: '12345678901234567890',
        exact: true,
        indented: '[\n1\n]',
      },
    });

    // http.post encodes a dict body with the same encoder.
    await approved(
      'bigpost.star',
      `def main():\n    return http.post("${origin}/bigpost", body = {"n": 1 << 60})["status"]\n`,
    );
    expect((await test('bigpost.star')).json()).toMatchObject({ success: true });
    expect(received.find((r) => r.url === '/bigpost')?.body).toBe('{"n":1152921504606846976}');
  });

  it('answers ints beyond 2^53 in a result exactly, as their decimal text', async () => {
    await approved(
      'bigresult.star',
      'def main():\n    return {"big": 1 << 60, "neg": -(1 << 60), "edge": (1 << 53) + 1, "small": 7, "list": [12345678901234567890]}\n',
    );
    const res = await test('bigresult.star');
    expect(res.json()).toMatchObject({
      success: true,
      result: {
        big: '1152921504606846976',
        neg: '-1152921504606846976',
        edge: '9007199254740993',
        small: 7,
        list: ['12345678901234567890'],
      },
    });
    await approved('bigvalue.star', 'result = 1 << 60\n');
    expect((await test('bigvalue.star')).json().result).toEqual({ value: '1152921504606846976' });
  });

  it('refuses a script edited on disk after approval, and runs it again once re-approved', async () => {
    await approved('edited.star', 'result = {"v": 1}\n');
    expect((await test('edited.star')).json().result).toEqual({ v: 1 });
    const { writeFileSync } = await import('node:fs');
    writeFileSync(`${h.ctx.config.paths.scripts}/edited.star`, 'result = {"v": 2}\n');
    const refused = await test('edited.star');
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toBe('script_modified');
    await h.services.scripts.reloadFromDisk();
    expect((await test('edited.star')).statusCode).toBe(409);
    expect((await h.call('POST', '/api/scripts/edited.star/approve')).statusCode).toBe(200);
    expect((await test('edited.star')).json().result).toEqual({ v: 2 });
  });

  it('runs list args positionally, and allowlisted scripts without approval (tool server)', async () => {
    const created = await h.call('POST', '/api/scripts', {
      name: 'tool.star',
      source: 'def add(a, b):\n    return a + b\n\ndef main():\n    return {"args": args}\n',
    });
    expect(created.statusCode).toBe(201);
    const runner = h.services.scriptRunner;
    expect(await runner.run({ name: 'tool.star', args: [1, 2], origin: 'mcp' })).toMatchObject({
      success: false,
      refusal: 'pending',
    });
    const add = await runner.run({
      name: 'tool.star',
      args: [1, 2],
      function: 'add',
      origin: 'mcp',
      allowUnapproved: true,
    });
    expect(add).toMatchObject({ success: true, result: { value: 3 } });
    const main = await runner.run({
      name: 'tool.star',
      args: ['x', 2],
      origin: 'mcp',
      allowUnapproved: true,
    });
    expect(main).toMatchObject({ success: true, result: { args: ['x', 2] } });
    expect(await runner.run({ name: 'missing.star', args: [], origin: 'schedule' })).toMatchObject({
      success: false,
      refusal: 'not_found',
      error: 'script missing.star not found',
    });
    const history = (await h.call('GET', '/api/scripts/tool.star')).json().execution_history;
    expect(history).toHaveLength(2);
  });

  it('answers a request refused before its handler by that refusal, its early checks unread', async () => {
    // The checks start beside the rate-limit count, before the body is validated: a missing
    // script with a bad body is still a 400, its 404 never surfaces (nor as an unhandled
    // rejection), and nothing reaches the queue.
    const queue = h.ctx.queues.queue('scriptRuns');
    const before = await queue.getJobCounts();
    const bad = await test('missing-run.star', { args: 5 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('invalid_request');
    const badName = await test('..%2Fsecrets.star', {});
    expect(badName.statusCode).toBe(400);
    expect(await queue.getJobCounts()).toEqual(before);
    // The same checks, reached: each refusal is the handler's own answer.
    expect((await test('missing-run.star')).statusCode).toBe(404);
    const created = await h.call('POST', '/api/scripts', {
      name: 'unreviewed.star',
      source: 'result = 1\n',
    });
    expect(created.statusCode).toBe(201);
    const pending = await test('unreviewed.star');
    expect(pending.statusCode).toBe(403);
    expect(await queue.getJobCounts()).toEqual(before);
  });

  it('keeps its answer whole when a secret value occurs in its own field names', async () => {
    // The API fuzz of issue 47 stored secrets with short random values; one was a piece of
    // "duration_ms" (or "success", "logs"), redaction rewrote the result's own keys, and every
    // later run answered 500 (the response no longer matched its schema).
    await approved('plain.star', 'def main():\n    print("ration")\n    return {"duration": 1}\n');
    await approved('plain-fail.star', 'def main():\n    fail("duration")\n');
    for (const value of ['ration', 'ucce', 'ogs', 'rror']) {
      await h.services.secrets.set('SHORT', value);
      await h.services.redaction.refresh();
      for (const name of ['plain.star', 'plain-fail.star']) {
        const res = await test(name);
        expect(res.statusCode, `${value} ${name}: ${res.body}`).toBe(200);
        const body = res.json();
        expect(Object.keys(body).sort()).toEqual(
          ['duration_ms', 'logs', 'success', body.success ? 'result' : 'error'].sort(),
        );
        expect(Number.isInteger(body.duration_ms)).toBe(true);
      }
    }
    await h.services.secrets.set('SHORT', 'ration');
    await h.services.redaction.refresh();
    // What the script produced is still redacted, keys included.
    const body = (await test('plain.star')).json();
    expect(body).toMatchObject({ logs: ['[REDACTED:SHORT]'], result: { 'du[REDACTED:SHORT]': 1 } });
    await h.services.secrets.delete('SHORT');
    await h.services.redaction.refresh();
  });

  it('needs a bearer token', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/api/scripts' });
    expect(res.statusCode).toBe(401);
  });
});
