import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgress, EgressError, type EgressOptions } from '../../src/net/egress.js';
import type { Resolver } from '../../src/net/resolve-target.js';
import { startServer, type LocalServer } from './local-server.js';

let server: LocalServer;
let other: LocalServer;

beforeAll(async () => {
  other = await startServer((_req, res) => {
    res.end('other');
  });
  server = await startServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    switch (url.pathname) {
      case '/hello':
        res.setHeader('content-type', 'text/plain');
        res.end('hello');
        return;
      case '/echo':
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            method: req.method,
            host: req.headers.host,
            auth: req.headers.authorization ?? null,
          }),
        );
        return;
      case '/redirect':
        res.statusCode = 302;
        res.setHeader('location', url.searchParams.get('to') ?? '/hello');
        res.end();
        return;
      case '/loop':
        res.statusCode = 301;
        res.setHeader('location', '/loop');
        res.end();
        return;
      case '/slow':
        await new Promise((r) => setTimeout(r, 2_000));
        res.end('late');
        return;
      case '/slow-body':
        res.write('start');
        await new Promise((r) => setTimeout(r, 2_000));
        res.end('end');
        return;
      case '/big':
        res.end(Buffer.alloc(5_000, 'a'));
        return;
      case '/big-chunked':
        for (let i = 0; i < 10; i++) res.write(Buffer.alloc(1_000, 'b'));
        res.end();
        return;
      case '/gzip-bomb':
        res.setHeader('content-encoding', 'gzip');
        res.end(gzipSync(Buffer.alloc(1_000_000, 0)));
        return;
      default:
        res.statusCode = 404;
        res.end('not found');
    }
  });
});

afterAll(async () => {
  await server.close();
  await other.close();
});

const base = (over: Partial<EgressOptions> = {}) =>
  createEgress({ allow: [], timeoutMs: 5_000, maxBodyBytes: 1_000_000, maxRedirects: 3, ...over });

async function refusal(promise: Promise<unknown>): Promise<EgressError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EgressError);
  return err as EgressError;
}

describe('blocked address classes', () => {
  const cases: Array<[string, string]> = [
    ['http://127.0.0.1/', 'loopback'],
    ['http://127.8.9.10/', 'loopback'],
    ['http://10.1.2.3/', 'private'],
    ['http://172.16.0.1/', 'private'],
    ['http://172.31.255.255/', 'private'],
    ['http://192.168.1.1/', 'private'],
    ['http://169.254.1.1/', 'link-local'],
    ['http://169.254.169.254/latest/meta-data', 'metadata'],
    ['http://100.64.0.1/', 'carrier-grade NAT'],
    ['http://224.0.0.1/', 'multicast'],
    ['http://0.0.0.0/', 'unspecified'],
    ['http://255.255.255.255/', 'broadcast'],
    ['http://[::1]/', 'loopback'],
    ['http://[::]/', 'unspecified'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://[fc00::1]/', 'unique-local'],
    ['http://[fd12:3456::1]/', 'unique-local'],
    ['http://[ff02::1]/', 'multicast'],
    ['http://[fd00:ec2::254]/', 'metadata'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[::ffff:10.0.0.1]/', 'private'],
    ['http://[::ffff:169.254.169.254]/', 'metadata'],
    ['http://[64:ff9b::a00:1]/', 'private'],
    ['http://2130706433/', 'loopback'], // decimal form of 127.0.0.1, normalised by URL
    ['http://0x7f.1/', 'loopback'],
  ];
  it.each(cases)('%s is refused as %s', async (url, word) => {
    const err = await refusal(base().fetch(url));
    expect(err.code).toBe('blocked');
    expect(err.message).toContain(word);
    expect(err.message).toContain('egress.allow');
  });

  it('names the address and how to permit it', async () => {
    const err = await refusal(base().fetch('http://127.0.0.1:8089/x'));
    expect(err.message).toBe(
      'blocked: 127.0.0.1 is a loopback address; add it to egress.allow (e.g. "127.0.0.1:8089") to permit it',
    );
  });

  it('refuses a host name that resolves to a private address', async () => {
    const resolver: Resolver = async () => [{ address: '10.0.0.7', family: 4 }];
    const err = await refusal(base({ resolver }).fetch('http://internal.test/'));
    expect(err.message).toContain('internal.test (10.0.0.7) is a private address');
  });

  it('refuses schemes other than http and https', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://example.com/', 'gopher://x/']) {
      expect((await refusal(base().fetch(url))).code).toBe('scheme');
    }
  });

  it('refuses invalid URLs and embedded credentials', async () => {
    expect((await refusal(base().fetch('not a url'))).code).toBe('invalid_url');
    expect((await refusal(base().fetch('http://u:p@example.com/'))).code).toBe('invalid_url');
  });
});

describe('allowlist', () => {
  it('admits an exact IP', async () => {
    const res = await base({ allow: ['127.0.0.1'] }).fetch(`${server.url}/hello`);
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('hello');
    expect(res.headers['content-type']).toBe('text/plain');
  });

  it('admits a CIDR', async () => {
    const res = await base({ allow: ['127.0.0.0/8'] }).fetch(`${server.url}/hello`);
    expect(res.body.toString()).toBe('hello');
  });

  it('admits IP:port and only that port', async () => {
    const egress = base({ allow: [`127.0.0.1:${server.port}`] });
    expect((await egress.fetch(`${server.url}/hello`)).status).toBe(200);
    const err = await refusal(egress.fetch(`${other.url}/`));
    expect(err.code).toBe('blocked');
  });

  it('admits host:port by name, connecting to the address resolved once', async () => {
    let lookups = 0;
    const resolver: Resolver = async (host) => {
      lookups++;
      return host === 'intranet.test' ? [{ address: '127.0.0.1', family: 4 }] : [];
    };
    const egress = base({ allow: [`intranet.test:${server.port}`], resolver });
    const res = await egress.fetch(`http://intranet.test:${server.port}/echo`);
    expect(JSON.parse(res.body.toString())).toMatchObject({ host: `intranet.test:${server.port}` });
    expect(lookups).toBe(1);
    const err = await refusal(egress.fetch(`http://intranet.test:${other.port}/`));
    expect(err.code).toBe('blocked');
  });

  it('skips refused answers and uses an admitted one', async () => {
    const resolver: Resolver = async () => [
      { address: '10.0.0.1', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    const res = await base({ allow: ['127.0.0.1'], resolver }).fetch(
      `http://multi.test:${server.port}/hello`,
    );
    expect(res.body.toString()).toBe('hello');
  });

  it('falls back to the next admitted address when one refuses the connection', async () => {
    const resolver: Resolver = async () => [
      { address: '::1', family: 6 },
      { address: '127.0.0.1', family: 4 },
    ];
    const egress = base({ allow: [`dual.test:${server.port}`], resolver });
    const res = await egress.fetch(`http://dual.test:${server.port}/hello`);
    expect(res.body.toString()).toBe('hello');
  });

  it('shows IPv6 answers as the resolver gave them', async () => {
    const resolver: Resolver = async () => [{ address: 'fd00::1', family: 6 }];
    const err = await refusal(base({ resolver }).fetch('https://v6.test/'));
    expect(err.message).toBe(
      'blocked: v6.test (fd00::1) is a unique-local address; add it to egress.allow (e.g. "[fd00::1]:443") to permit it',
    );
  });

  it('admits an IPv4-mapped address through its IPv4 entry', async () => {
    const egress = base({ allow: ['127.0.0.1'] });
    await expect(egress.check('http://[::ffff:127.0.0.1]:1/')).resolves.toBeUndefined();
    await expect(egress.check('http://[::1]:1/')).rejects.toThrow(/loopback/);
  });

  it('admits a bracketed IPv6 with port', async () => {
    const egress = base({ allow: ['[::1]:8080', 'fd00::/8'] });
    await expect(egress.check('http://[::1]:8080/')).resolves.toBeUndefined();
    await expect(egress.check('http://[::1]:8081/')).rejects.toThrow(/blocked/);
    await expect(egress.check('http://[fd00::5]/')).resolves.toBeUndefined();
  });

  it('rejects malformed entries', () => {
    expect(() => base({ allow: ['10.0.0.0/33'] })).toThrow(/not a valid IP network/);
    expect(() => base({ allow: ['host:port'] })).toThrow(/port must be a number/);
    expect(() => base({ allow: ['bad host'] })).toThrow(/neither a host name/);
  });
});

describe('redirects', () => {
  it('follows an allowed redirect and reports the final URL', async () => {
    const res = await base({ allow: ['127.0.0.1'] }).fetch(`${server.url}/redirect?to=/hello`);
    expect(res.body.toString()).toBe('hello');
    expect(res.url).toBe(`${server.url}/hello`);
  });

  it('checks every redirect target again', async () => {
    const egress = base({ allow: [`127.0.0.1:${server.port}`] });
    const err = await refusal(
      egress.fetch(`${server.url}/redirect?to=${encodeURIComponent(`${other.url}/`)}`),
    );
    expect(err.code).toBe('blocked');
    const meta = await refusal(egress.fetch(`${server.url}/redirect?to=http://169.254.169.254/`));
    expect(meta.message).toContain('metadata');
    expect(meta.message).toContain(`(reached by a redirect from ${server.url}/redirect`);
    const file = await refusal(egress.fetch(`${server.url}/redirect?to=file:///etc/passwd`));
    expect(file.code).toBe('scheme');
  });

  it('stops after maxRedirects', async () => {
    const err = await refusal(base({ allow: ['127.0.0.1'] }).fetch(`${server.url}/loop`));
    expect(err.code).toBe('too_many_redirects');
  });

  it('drops credentials when a redirect changes origin', async () => {
    const egress = base({ allow: ['127.0.0.1'] });
    const same = await egress.fetch(`${server.url}/redirect?to=/echo`, {
      headers: { Authorization: 'token x' },
    });
    expect(JSON.parse(same.body.toString()).auth).toBe('token x');
    const cross = await egress.fetch(
      `${server.url}/redirect?to=${encodeURIComponent(`http://localhost:${server.port}/echo`)}`,
      {
        headers: { Authorization: 'token x' },
      },
    );
    expect(JSON.parse(cross.body.toString()).auth).toBeNull();
  });
});

describe('limits', () => {
  it('times out', async () => {
    const started = Date.now();
    const err = await refusal(
      base({ allow: ['127.0.0.1'], timeoutMs: 300 }).fetch(`${server.url}/slow`),
    );
    expect(err.code).toBe('timeout');
    expect(err.message).toContain('timed out after 300 ms');
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('times out while the body is still arriving', async () => {
    const egress = base({ allow: ['127.0.0.1'], timeoutMs: 300 });
    const err = await refusal(egress.fetch(`${server.url}/slow-body`));
    expect(err.code).toBe('timeout');
  });

  it('a per-request timeout can only be shorter', async () => {
    const err = await refusal(
      base({ allow: ['127.0.0.1'] }).fetch(`${server.url}/slow`, { timeoutMs: 200 }),
    );
    expect(err.code).toBe('timeout');
  });

  it('refuses a body over the limit (declared, streamed and decompressed)', async () => {
    const egress = base({ allow: ['127.0.0.1'], maxBodyBytes: 4_000 });
    for (const path of ['/big', '/big-chunked', '/gzip-bomb']) {
      const err = await refusal(egress.fetch(`${server.url}${path}`));
      expect([path, err.code, err.message]).toEqual([
        path,
        'too_large',
        expect.stringContaining('4000 bytes'),
      ]);
    }
    const small = await refusal(
      base({ allow: ['127.0.0.1'] }).fetch(`${server.url}/big`, { maxBytes: 100 }),
    );
    expect(small.code).toBe('too_large');
  });

  it('honours a caller abort signal', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const err = await refusal(
      base({ allow: ['127.0.0.1'] }).fetch(`${server.url}/slow`, { signal: controller.signal }),
    );
    expect(err.code).toBe('aborted');
  });

  it('sends a method and body', async () => {
    const res = await base({ allow: ['127.0.0.1'] }).fetch(`${server.url}/echo`, {
      method: 'post',
      body: '{"a":1}',
    });
    expect(JSON.parse(res.body.toString()).method).toBe('POST');
    expect(server.requests.at(-1)?.body).toBe('{"a":1}');
  });
});

describe('request shaping', () => {
  let shaping: LocalServer;

  beforeAll(async () => {
    shaping = await startServer((req, res, body) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const status = Number(url.searchParams.get('status') ?? 0);
      if (url.pathname === '/hop' && status) {
        res.statusCode = status;
        res.setHeader('location', '/seen');
        return res.end();
      }
      if (url.pathname === '/cookies') {
        res.setHeader('set-cookie', ['a=1', 'b=2']);
        return res.end();
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ method: req.method, headers: req.headers, body }));
    });
  });
  afterAll(() => shaping.close());

  const egress = () => base({ allow: ['127.0.0.1'] });
  const seen = (res: { body: Buffer }) =>
    JSON.parse(res.body.toString()) as {
      method: string;
      headers: Record<string, string>;
      body: string;
    };

  it('turns a POST into a body-less GET on 303, and on 301/302 as browsers do', async () => {
    for (const status of [301, 302, 303]) {
      const res = await egress().fetch(`${shaping.url}/hop?status=${status}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"a":1}',
      });
      const echo = seen(res);
      expect([status, echo.method, echo.body]).toEqual([status, 'GET', '']);
      expect(echo.headers['content-type'], String(status)).toBeUndefined();
      expect(echo.headers['content-length'], String(status)).toBeUndefined();
    }
  });

  it('keeps method and body on 307 and 308', async () => {
    for (const status of [307, 308]) {
      const res = await egress().fetch(`${shaping.url}/hop?status=${status}`, {
        method: 'PUT',
        headers: { 'content-type': 'text/plain' },
        body: 'payload',
      });
      const echo = seen(res);
      expect([status, echo.method, echo.body, echo.headers['content-type']]).toEqual([
        status,
        'PUT',
        'payload',
        'text/plain',
      ]);
    }
  });

  it('computes framing headers from the body it sends, ignoring the caller’s', async () => {
    const res = await egress().fetch(`${shaping.url}/echo`, {
      method: 'POST',
      headers: { 'Content-Length': '999', 'Transfer-Encoding': 'chunked', Connection: 'upgrade' },
      body: new Uint8Array([104, 105]),
    });
    const echo = seen(res);
    expect(echo.body).toBe('hi');
    expect(echo.headers['content-length']).toBe('2');
    expect(echo.headers['transfer-encoding']).toBeUndefined();
    expect(echo.headers.connection).not.toBe('upgrade');
  });

  it('asks for an uncompressed body unless the caller says otherwise', async () => {
    expect(seen(await egress().fetch(`${shaping.url}/echo`)).headers['accept-encoding']).toBe(
      'identity',
    );
    const gzip = await egress().fetch(`${shaping.url}/echo`, {
      headers: { 'Accept-Encoding': 'gzip' },
    });
    expect(seen(gzip).headers['accept-encoding']).toBe('gzip');
  });

  it('drops cookies and proxy credentials too on a cross-origin redirect', async () => {
    const target = encodeURIComponent(`http://localhost:${shaping.port}/echo`);
    const res = await base({ allow: ['127.0.0.1', 'localhost'] }).fetch(
      `${server.url}/redirect?to=${target}`,
      { headers: { Cookie: 'session=1', 'Proxy-Authorization': 'Basic x', 'X-Keep': 'yes' } },
    );
    const echo = seen(res);
    expect(echo.headers.cookie).toBeUndefined();
    expect(echo.headers['proxy-authorization']).toBeUndefined();
    expect(echo.headers['x-keep']).toBe('yes');
  });

  it('joins repeated response headers', async () => {
    const res = await egress().fetch(`${shaping.url}/cookies`);
    expect(res.headers['set-cookie']).toBe('a=1, b=2');
  });

  it('check() refuses what fetch() would, and sends nothing either way', async () => {
    const before = shaping.requests.length;
    await expect(egress().check(`${shaping.url}/echo`)).resolves.toBeUndefined();
    await expect(base().check(`${shaping.url}/echo`)).rejects.toThrow(/loopback/);
    await expect(base().check('ftp://example.com/')).rejects.toMatchObject({ code: 'scheme' });
    expect(shaping.requests.length).toBe(before);
  });

  it('reports a refused connection as a network error', async () => {
    const closed = await startServer(() => undefined);
    const url = `${closed.url}/`;
    await closed.close();
    const err = await refusal(egress().fetch(url));
    expect(err.code).toBe('network');
    expect(err.message).toMatch(new RegExp(`^request to ${url} failed: .*ECONNREFUSED`));
  });
});
