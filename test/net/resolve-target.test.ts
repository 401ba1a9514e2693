import { describe, expect, it } from 'vitest';
import { createAllowlist } from '../../src/net/allowlist.js';
import { EgressError } from '../../src/errors/egress-errors.js';
import {
  parseUrl,
  resolveTarget,
  systemResolver,
  type Resolver,
} from '../../src/net/resolve-target.js';

const none = createAllowlist([]);

/** A resolver that answers from a fixed table and counts its lookups. */
function table(answers: Record<string, Array<{ address: string; family: number }>>) {
  const asked: string[] = [];
  const resolver: Resolver = async (host) => {
    asked.push(host);
    const found = answers[host];
    if (!found)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found;
  };
  return { resolver, asked };
}

const neverAsked: Resolver = async (host) => {
  throw new Error(`the resolver was asked for ${host}`);
};

async function failure(promise: Promise<unknown>): Promise<EgressError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EgressError);
  return err as EgressError;
}

describe('parseUrl', () => {
  it('accepts http and https, normalising the host', () => {
    expect(parseUrl('HTTPS://Example.COM/a?b=1').href).toBe('https://example.com/a?b=1');
    expect(parseUrl('http://[::1]:8080/').hostname).toBe('[::1]');
  });

  it('resolves a redirect location against the page that sent it', () => {
    expect(parseUrl('/next', 'https://example.com/a/b').href).toBe('https://example.com/next');
    expect(parseUrl('//other.test/x', 'https://example.com/').href).toBe('https://other.test/x');
  });

  it('refuses every other scheme', () => {
    for (const url of [
      'file:///etc/passwd',
      'ftp://example.com/',
      'gopher://example.com/',
      'data:text/plain,hi',
      'javascript:alert(1)',
      'ws://example.com/',
    ]) {
      const err = (() => {
        try {
          parseUrl(url);
        } catch (e) {
          return e as EgressError;
        }
      })();
      expect(err, url).toBeInstanceOf(EgressError);
      expect(err?.code, url).toBe('scheme');
    }
    expect(() => parseUrl('file:///x')).toThrow('only http and https URLs are allowed, not file');
  });

  it('refuses a relative redirect onto another scheme', () => {
    expect(() => parseUrl('file:///etc/passwd', 'https://example.com/')).toThrow(/not file/);
  });

  it('refuses text that is not a URL, with an example of one', () => {
    expect(() => parseUrl('example.com/page')).toThrow(
      'invalid URL: example.com/page (give a full URL such as https://example.com/page)',
    );
    expect(() => parseUrl('')).toThrow(EgressError);
  });

  it('refuses embedded credentials, user name alone included', () => {
    for (const url of [
      'http://user:pass@example.com/',
      'http://user@example.com/',
      'http://:pw@example.com/',
    ]) {
      expect(() => parseUrl(url), url).toThrow('URLs with embedded credentials are not allowed');
    }
  });
});

describe('resolveTarget', () => {
  it('uses an IP literal as it is, without asking DNS', async () => {
    const target = await resolveTarget(parseUrl('http://93.184.216.34/x'), none, neverAsked);
    expect(target).toMatchObject({
      host: '93.184.216.34',
      port: 80,
      addresses: [{ address: '93.184.216.34', family: 4 }],
    });
    const v6 = await resolveTarget(parseUrl('https://[2606:4700::1111]:8443/'), none, neverAsked);
    expect(v6).toMatchObject({
      host: '2606:4700::1111',
      port: 8443,
      addresses: [{ address: '2606:4700::1111', family: 6 }],
    });
  });

  it('defaults the port by scheme', async () => {
    const { resolver } = table({ 'site.test': [{ address: '203.0.113.5', family: 4 }] });
    expect((await resolveTarget(parseUrl('http://site.test/'), none, resolver)).port).toBe(80);
    expect((await resolveTarget(parseUrl('https://site.test/'), none, resolver)).port).toBe(443);
    expect((await resolveTarget(parseUrl('https://site.test:444/'), none, resolver)).port).toBe(
      444,
    );
  });

  it('resolves once and keeps public answers in resolver order', async () => {
    const { resolver, asked } = table({
      'dual.test': [
        { address: '2606:4700::1', family: 6 },
        { address: '203.0.113.7', family: 4 },
      ],
    });
    const target = await resolveTarget(parseUrl('http://dual.test/'), none, resolver);
    expect(asked).toEqual(['dual.test']);
    expect(target.addresses).toEqual([
      { address: '2606:4700::1', family: 6 },
      { address: '203.0.113.7', family: 4 },
    ]);
  });

  it('drops refused answers so that only checked addresses can be connected to', async () => {
    const { resolver } = table({
      'rebind.test': [
        { address: '127.0.0.1', family: 4 },
        { address: '203.0.113.7', family: 4 },
        { address: '169.254.169.254', family: 4 },
      ],
    });
    const target = await resolveTarget(parseUrl('http://rebind.test/'), none, resolver);
    expect(target.addresses).toEqual([{ address: '203.0.113.7', family: 4 }]);
  });

  it('refuses a name whose every answer is off limits, naming the first one', async () => {
    const { resolver } = table({
      'inside.test': [
        { address: '10.0.0.7', family: 4 },
        { address: '::1', family: 6 },
      ],
    });
    const err = await failure(resolveTarget(parseUrl('http://inside.test:8080/'), none, resolver));
    expect(err.code).toBe('blocked');
    expect(err.message).toBe(
      'blocked: inside.test (10.0.0.7) is a private address; add it to egress.allow (e.g. "10.0.0.7:8080") to permit it',
    );
  });

  it('suggests a bracketed entry for an IPv6 literal', async () => {
    const err = await failure(resolveTarget(parseUrl('http://[fe80::1]/'), none, neverAsked));
    expect(err.message).toBe(
      'blocked: fe80::1 is a link-local address; add it to egress.allow (e.g. "[fe80::1]:80") to permit it',
    );
  });

  it('refuses mapped IPv6 answers that point at an internal IPv4 address', async () => {
    const { resolver } = table({ 'sneaky.test': [{ address: '::ffff:127.0.0.1', family: 6 }] });
    const err = await failure(resolveTarget(parseUrl('http://sneaky.test/'), none, resolver));
    expect(err.message).toContain('a loopback address (embedded in IPv6)');
  });

  it('admits an internal answer the allowlist names, by name (trailing dot or not) or address', async () => {
    const { resolver } = table({
      'nas.test': [{ address: '192.168.1.5', family: 4 }],
      'nas.test.': [{ address: '192.168.1.5', family: 4 }],
    });
    const byName = createAllowlist(['nas.test']);
    expect((await resolveTarget(parseUrl('http://nas.test/'), byName, resolver)).addresses).toEqual(
      [{ address: '192.168.1.5', family: 4 }],
    );
    expect(
      (await resolveTarget(parseUrl('http://nas.test./'), byName, resolver)).addresses,
    ).toHaveLength(1);
    const byPort = createAllowlist(['192.168.1.0/24:5000']);
    await expect(
      resolveTarget(parseUrl('http://nas.test:5000/'), byPort, resolver),
    ).resolves.toBeDefined();
    await expect(resolveTarget(parseUrl('http://nas.test/'), byPort, resolver)).rejects.toThrow(
      /blocked/,
    );
  });

  it('reports DNS failures as dns errors with the resolver code', async () => {
    const { resolver } = table({});
    const err = await failure(resolveTarget(parseUrl('http://missing.test/'), none, resolver));
    expect(err.code).toBe('dns');
    expect(err.message).toBe('cannot resolve missing.test: ENOTFOUND');
    const plain: Resolver = async () => {
      throw new Error('resolver exploded');
    };
    expect((await failure(resolveTarget(parseUrl('http://x.test/'), none, plain))).message).toBe(
      'cannot resolve x.test: resolver exploded',
    );
  });

  it('reports a name with no usable address', async () => {
    const { resolver } = table({
      'empty.test': [],
      'junk.test': [{ address: 'not-an-ip', family: 4 }],
    });
    for (const host of ['empty.test', 'junk.test']) {
      const err = await failure(resolveTarget(parseUrl(`http://${host}/`), none, resolver));
      expect([err.code, err.message]).toEqual(['dns', `cannot resolve ${host}: no addresses`]);
    }
  });

  it('takes the family from the address, not from what the resolver claims', async () => {
    const { resolver } = table({ 'odd.test': [{ address: '2606:4700::1', family: 4 }] });
    const target = await resolveTarget(parseUrl('http://odd.test/'), none, resolver);
    expect(target.addresses).toEqual([{ address: '2606:4700::1', family: 6 }]);
  });

  it('refuses localhost through the system resolver', async () => {
    const err = await failure(resolveTarget(parseUrl('http://localhost/'), none, systemResolver));
    expect(err.code).toBe('blocked');
    expect(err.message).toMatch(/^blocked: localhost \((127\.0\.0\.1|::1)\) is a loopback address/);
  });
});
