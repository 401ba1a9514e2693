import { describe, expect, it } from 'vitest';
import { Secret, StarlarkError, type SecretAtom } from '../../../src/starlark/index.js';
import { percentEncode, placeUrl } from '../../../src/workers/script-runs/secret-url.js';

/** Atoms whose text the test knows, as the host's vault would. */
const values = new Map<SecretAtom, string>();
const atom = (name: string, value: string): SecretAtom => {
  const a = { secretNames: [name] };
  values.set(a, value);
  return a;
};
const textOf = (a: SecretAtom) => values.get(a) as string;
const place = (...parts: Array<string | SecretAtom>) =>
  placeUrl('http.get', new Secret(parts), textOf);

describe('secrets placed in a URL', () => {
  const tricky: Record<string, string> = {
    'space and colon': 'Quiet Horse:Staple-88',
    'non-ASCII': 'pässwört-Ünïcödé',
    quotes: `it's "quoted"`,
    emoji: 'key-😀-🔑',
    'URL syntax': 'a/b?c=d&e=f#g%41+h\\i;j',
    'lone surrogate': 'x\ud800y',
  };

  for (const [what, value] of Object.entries(tricky)) {
    it(`puts a value with ${what} into the path so that it decodes back exactly`, () => {
      const placed = place('https://api.example.com/v1/', atom('K', value), '/items');
      const url = new URL(placed.url);
      expect(url.origin).toBe('https://api.example.com');
      expect(url.search).toBe('');
      const expected = value.replace('\ud800', '\ufffd');
      // One segment unless the value holds "/" itself, which a path keeps as a separator.
      expect(decodeURIComponent(url.pathname)).toBe(`/v1/${expected}/items`);
      expect(placed.shown).toBe('https://api.example.com/v1/<secret K>/items');
    });

    it(`puts a value with ${what} into a query parameter so that it decodes back exactly`, () => {
      const placed = place('https://api.example.com/search?key=', atom('K', value), '&q=1');
      const url = new URL(placed.url);
      expect(url.pathname).toBe('/search');
      expect(url.searchParams.get('key')).toBe(value.replace('\ud800', '\ufffd'));
      expect(url.searchParams.get('q')).toBe('1');
      expect(url.hash).toBe('');
    });
  }

  it('encodes each component with the WHATWG set (and what would change the value read back)', () => {
    expect(percentEncode('Quiet Horse:Staple-88', /[\0-\x20"#<>?`{}^\x7f%\\]/)).toBe(
      'Quiet%20Horse:Staple-88',
    );
    const placed = place(
      'https://h.example/p/',
      atom('A', `a b"'é😀`),
      '?x=',
      atom('B', `a b"'é😀`),
    );
    expect(placed.url).toBe(
      `https://h.example/p/a%20b%22'%C3%A9%F0%9F%98%80?x=a%20b%22%27%C3%A9%F0%9F%98%80`,
    );
    expect(placed.shown).toBe('https://h.example/p/<secret A>?x=<secret B>');
    expect(placed.secretHost).toBe(false);
  });

  it('keeps the literal text as the WHATWG parser has it, and the host the literal names', () => {
    const placed = place('HTTPS://API.Example.COM:443/a b/', atom('K', 'v'));
    expect(placed.url).toBe('https://api.example.com/a%20b/v');
  });

  it('takes a value that holds the stand-in text for no other secret', () => {
    const placed = place('https://h.example/', atom('A', 'stewardsecret1z'), '/', atom('B', 'b'));
    expect(placed.url).toBe('https://h.example/stewardsecret1z/b');
    const literal = place('https://h.example/stewardsecret0z/', atom('C', 'c'));
    expect(literal.url).toBe('https://h.example/stewardsecret0z/c');
  });

  it('refuses a secret in the fragment, which is never sent', () => {
    expect(() => place('https://h.example/#', atom('K', 'v'))).toThrow(StarlarkError);
    expect(() => place('https://h.example/#', atom('K', 'v'))).toThrow(
      /<secret K> is in the URL's fragment/,
    );
  });

  it('parses a URL that is a secret whole (a webhook URL), hiding its host from errors', () => {
    const placed = place(atom('HOOK', 'https://hooks.example.com/services/T0/B0/x y'));
    expect(placed).toMatchObject({
      url: 'https://hooks.example.com/services/T0/B0/x%20y',
      shown: '<secret HOOK>',
      secretHost: true,
    });
    const withPath = place(atom('BASE', 'https://hooks.example.com'), '/v1?x=1');
    expect(withPath.url).toBe('https://hooks.example.com/v1?x=1');
    expect(() => place(atom('BAD', 'not a url'), '/x')).toThrow(
      'http.get: url <secret BAD>/x is not a valid URL',
    );
  });

  it('treats a secret in the user name, password, host or port as the URL itself', () => {
    expect(place('https://', atom('U', 'user'), '@h.example/').secretHost).toBe(true);
    expect(place('https://h', atom('H', 'ost'), '.example/').secretHost).toBe(true);
    expect(place('https://h.example:', atom('P', '8443'), '/').url).toBe('https://h.example:8443/');
  });
});
