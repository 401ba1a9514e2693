import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgress } from '../../src/net/egress.js';
import { egressFetch } from '../../src/net/fetch-adapter.js';
import { startServer, type LocalServer } from './local-server.js';

let server: LocalServer;

beforeAll(async () => {
  server = await startServer((req, res, body) => {
    if (req.url === '/empty') {
      res.statusCode = 204;
      return res.end();
    }
    res.setHeader('content-type', 'application/json');
    res.setHeader('x-seen', String(req.headers['x-test'] ?? ''));
    res.end(JSON.stringify({ method: req.method, body }));
  });
});

afterAll(() => server.close());

describe('egressFetch', () => {
  const egress = createEgress({
    allow: ['127.0.0.1'],
    timeoutMs: 5_000,
    maxBodyBytes: 100_000,
    maxRedirects: 2,
  });
  const fetchFn = egressFetch(egress);

  it('behaves like fetch for JSON requests', async () => {
    const res = await fetchFn(`${server.url}/x`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-test': 'yes' },
      body: '{"a":1}',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-seen')).toBe('yes');
    expect(res.url).toBe(`${server.url}/x`);
    expect(await res.json()).toEqual({ method: 'POST', body: '{"a":1}' });
  });

  it('handles a body-less status and refuses what egress refuses', async () => {
    expect((await fetchFn(`${server.url}/empty`)).status).toBe(204);
    await expect(fetchFn('http://10.0.0.1/')).rejects.toThrow(/private address/);
  });
});
