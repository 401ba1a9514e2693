import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgress } from '../../../src/net/egress.js';
import { createHostHandler, type HttpAnswer } from '../../../src/workers/script-runs/host-calls.js';
import { startServer, type LocalServer } from '../../net/local-server.js';

let server: LocalServer;
beforeAll(async () => {
  server = await startServer((req, res, body) => {
    if (req.url === '/slow') return; // never answers
    res.writeHead(201, { 'x-reply': 'yes', 'content-type': 'text/plain' });
    res.end(req.url === '/big' ? 'b'.repeat(600) : `got ${req.method} ${body}`);
  });
});
afterAll(() => server.close());

const egress = () =>
  createEgress({
    allow: [`127.0.0.1:${server.port}`],
    timeoutMs: 10_000,
    maxBodyBytes: 1 << 20,
    maxRedirects: 0,
  });
const handler = (opts: { deadline?: number; bodyBudget?: number } = {}) =>
  createHostHandler({
    egress: egress(),
    deadline: opts.deadline ?? Date.now() + 5000,
    bodyBudget: opts.bodyBudget ?? 1 << 20,
  });

describe('host calls', () => {
  it("sends a script's HTTP request through egress and answers status, text body and headers", async () => {
    const before = server.requests.length;
    const answer = (await handler()('http', {
      method: 'POST',
      url: `${server.url}/echo`,
      headers: { 'content-type': 'application/json', 'x-token': 't' },
      body: '{"a":1}',
    })) as HttpAnswer;
    expect(answer).toMatchObject({ status: 201, body: 'got POST {"a":1}' });
    expect(answer.headers['x-reply']).toBe('yes');
    expect(server.requests[before]).toMatchObject({
      method: 'POST',
      url: '/echo',
      body: '{"a":1}',
    });
    expect(server.requests[before]?.headers['x-token']).toBe('t');
  });

  it('refuses unknown operations', async () => {
    await expect(handler()('exec', {})).rejects.toThrow('unknown host call exec');
  });

  it("refuses a request once the run's wall time is used up, sending nothing", async () => {
    const before = server.requests.length;
    await expect(
      handler({ deadline: Date.now() - 1 })('http', {
        method: 'GET',
        url: `${server.url}/x`,
        headers: {},
      }),
    ).rejects.toThrow('wall time limit reached before the request');
    expect(server.requests.length).toBe(before);
  });

  it("ends a request that has not answered by the run's deadline", async () => {
    const started = Date.now();
    await expect(
      handler({ deadline: Date.now() + 300 })('http', {
        method: 'GET',
        url: `${server.url}/slow`,
        headers: {},
      }),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('counts response bodies against one budget per run', async () => {
    const h = handler({ bodyBudget: 1000 });
    const get = { method: 'GET', url: `${server.url}/big`, headers: {} };
    expect(((await h('http', get)) as HttpAnswer).body).toHaveLength(600);
    // 400 bytes left: a 600-byte body is over it.
    await expect(h('http', get)).rejects.toThrow();
    // Another run has its own budget.
    expect(((await handler({ bodyBudget: 1000 })('http', get)) as HttpAnswer).status).toBe(201);
  });

  it('refuses further requests once the budget is used up', async () => {
    const h = handler({ bodyBudget: 600 });
    const get = { method: 'GET', url: `${server.url}/big`, headers: {} };
    await h('http', get);
    await expect(h('http', get)).rejects.toThrow('HTTP response body limit of this run is used up');
  });

  it('refuses hosts outside the egress allowlist', async () => {
    await expect(
      handler()('http', { method: 'GET', url: 'http://127.0.0.2:9/', headers: {} }),
    ).rejects.toThrow();
  });

  it('checks the secrets a request carries against their bindings before sending it', async () => {
    const bindings = {
      destinations: { API_KEY: [`127.0.0.1:${server.port}`] },
      placements: { API_KEY: 'header Authorization' },
      policy: 'bound' as const,
    };
    const h = createHostHandler({
      egress: egress(),
      deadline: Date.now() + 5000,
      bodyBudget: 1 << 20,
      bindings,
    });
    const call = (place: string, url = `${server.url}/placed`) => ({
      method: 'GET',
      url,
      headers: { authorization: 'Bearer v' },
      secrets: [{ name: 'API_KEY', place }],
    });
    const before = server.requests.length;
    await expect(h('http', call('url'))).rejects.toThrow(
      /carries secret API_KEY in the url, which its # @secrets: line admits only in header Authorization/,
    );
    await expect(h('http', call('header authorization', 'http://127.0.0.2:9/'))).rejects.toThrow(
      /request to 127\.0\.0\.2:9 refused: it carries secret API_KEY in header authorization/,
    );
    // Without bindings, nothing may leave with a secret.
    const unbound = createHostHandler({
      egress: egress(),
      deadline: Date.now() + 5000,
      bodyBudget: 1 << 20,
    });
    await expect(unbound('http', call('header authorization'))).rejects.toThrow(
      /may be sent nowhere/,
    );
    expect(server.requests.length).toBe(before);
    await h('http', call('header authorization'));
    expect(server.requests.at(-1)?.headers.authorization).toBe('Bearer v');
  });
});
