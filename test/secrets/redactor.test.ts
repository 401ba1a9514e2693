import { describe, expect, it } from 'vitest';
import { createRedactor, emptyRedactor } from '../../src/secrets/redactor.js';
import { patternsFor } from '../../src/secrets/encodings.js';
import { createEgress } from '../../src/net/egress.js';

const TOKEN = 'sk-live_9f8e7d6c5b4a3210?+/=';
const M = '[REDACTED:API_TOKEN]';
const redactor = createRedactor([{ name: 'API_TOKEN', value: TOKEN }]);

/** The value must be gone and a marker present. */
function expectRedacted(text: string, encoded: string) {
  const out = redactor.redact(text);
  expect(out).not.toContain(encoded);
  expect(out).toContain(M);
  return out;
}

const b64 = (bytes: Buffer) => bytes.toString('base64');
const b64url = (bytes: Buffer) => bytes.toString('base64url');

describe('redactor canaries', () => {
  it('redacts the plain value', () => {
    expect(redactor.redact(`token=${TOKEN}; done`)).toBe(`token=${M}; done`);
  });

  it('returns the same string when nothing matches', () => {
    const text = 'nothing to see here '.repeat(100);
    expect(redactor.redact(text)).toBe(text);
    expect(emptyRedactor.redact(text)).toBe(text);
  });

  for (const lead of [0, 1, 2]) {
    for (const tail of [0, 1, 2]) {
      it(`redacts base64 with ${lead} byte(s) before and ${tail} after (standard and URL-safe)`, () => {
        const bytes = Buffer.concat([
          Buffer.from('xyz'.slice(0, lead)),
          Buffer.from(TOKEN),
          Buffer.from('uvw'.slice(0, tail)),
        ]);
        for (const encode of [b64, b64url]) {
          const padded = encode(bytes);
          const unpadded = padded.replace(/=+$/, '');
          for (const encoded of [padded, unpadded]) {
            const out = expectRedacted(`before ${encoded} after`, encoded);
            // Only the few boundary characters that carry unknown bits may remain.
            expect(out.length).toBeLessThanOrEqual(`before  after`.length + M.length + 8);
          }
        }
      });
    }
  }

  it('redacts base64 of the value at the very end, padding included', () => {
    const encoded = b64(Buffer.from(`ab${TOKEN}`));
    const out = redactor.redact(`"${encoded}"`);
    expect(out).toMatch(/^"[A-Za-z0-9+/]{0,3}\[REDACTED:API_TOKEN\]"$/);
  });

  it('redacts percent-encoding: encodeURIComponent, form encoding, every byte upper and lower', () => {
    const hex = Buffer.from(TOKEN).toString('hex');
    const forms = [
      encodeURIComponent(TOKEN),
      new URLSearchParams({ q: TOKEN }).toString().slice(2),
      hex.replace(/../g, '%$&'),
      hex.toUpperCase().replace(/../g, '%$&'),
    ];
    for (const form of forms) {
      expect(redactor.redact(`https://x.test/?q=${form}&a=1`)).toBe(`https://x.test/?q=${M}&a=1`);
    }
  });

  it('matches without regard to ASCII case: a secret used as a URL host comes back lower-cased', async () => {
    const host = 'MyHostKey7Q2ZbX9';
    const redactor = createRedactor([{ name: 'HOSTKEY', value: host }]);
    // Egress reports the host as the URL parser wrote it, lower-cased, before any DNS lookup.
    const egress = createEgress({
      allow: ['127.0.0.1'],
      timeoutMs: 1000,
      maxBodyBytes: 1000,
      maxRedirects: 0,
      resolver: async () => {
        throw new Error('no DNS in this test');
      },
    });
    const message = await egress.check(`http://${host}.example.invalid/`).then(
      () => '',
      (err: Error) => err.message,
    );
    expect(message).toContain(host.toLowerCase());
    expect(redactor.redact(message)).not.toMatch(/myhostkey/i);
    expect(redactor.redact(message)).toContain('[REDACTED:HOSTKEY]');
    expect(redactor.redact('MYHOSTKEY7Q2ZBX9 and myhostkey7q2zbx9')).toBe(
      '[REDACTED:HOSTKEY] and [REDACTED:HOSTKEY]',
    );
    expect(createRedactor([{ name: 'U', value: 'ÄBCDEFGH' }]).redact('äbcdefgh')).toBe(
      '[REDACTED:U]',
    );
  });

  it('matches a value beyond ASCII in any case, and the encodings of each case', () => {
    const value = 'pässwört-Straße-σοφία';
    const r = createRedactor([{ name: 'P', value }]);
    for (const text of [
      value,
      value.toUpperCase(), // PÄSSWÖRT-STRASSE-ΣΟΦΊΑ: ß becomes SS
      value.toLowerCase(),
      'PÄSSWÖRT-STRAßE-ΣΟΦΊΑ',
      'pässwört-straße-σοφίας'.slice(0, -1), // final sigma folds like σ
      encodeURIComponent(value.toUpperCase()),
      Buffer.from(value.toUpperCase()).toString('base64'),
      Buffer.from(value.toUpperCase()).toString('hex'),
      JSON.stringify(value.toUpperCase()).slice(1, -1),
    ]) {
      expect(r.redact(`<${text}>`), text).toBe('<[REDACTED:P]>');
    }
  });

  it('redacts what a URL parser writes for a value in each part of a URL', async () => {
    const value = `Quiet Horse:Staple-88 "ü" 'x' {😀}`;
    const r = createRedactor([{ name: 'K', value }]);
    const url = new URL(`http://u:p@evil.example/a/${value}?q=${value}#${value}`);
    url.username = value;
    const out = r.redact(url.href);
    expect(out).toBe(
      'http://[REDACTED:K]:p@evil.example/a/[REDACTED:K]?q=[REDACTED:K]#[REDACTED:K]',
    );
    // The query with `+` for spaces, and lower-case hex.
    const form = url.search.slice(3).replaceAll('%20', '+').toLowerCase();
    expect(r.redact(form)).toBe('[REDACTED:K]');
    // An error of a real request carries the URL as the parser wrote it.
    const egress = createEgress({
      allow: ['127.0.0.1:1'],
      timeoutMs: 1000,
      maxBodyBytes: 1000,
      maxRedirects: 0,
    });
    const message = await egress.fetch(`http://127.0.0.1:1/x/${value}`).then(
      () => '',
      (err: Error) => err.message,
    );
    expect(message).toContain('Quiet%20Horse:Staple-88');
    expect(r.redact(message)).not.toContain('Horse');
  });

  it('redacts hex, upper and lower case', () => {
    const hex = Buffer.from(TOKEN).toString('hex');
    expect(redactor.redact(`<${hex}>`)).toBe(`<${M}>`);
    expect(redactor.redact(`<${hex.toUpperCase()}>`)).toBe(`<${M}>`);
  });

  it('redacts JSON-escaped values, including the \\u form of non-ASCII', () => {
    const value = 'pässwörd "quoted" \\ back\tslash €';
    const r = createRedactor([{ name: 'P', value }]);
    const json = JSON.stringify({ v: value });
    expect(r.redact(json)).toBe('{"v":"[REDACTED:P]"}');
    const ascii = json.replace(
      /[^\x00-\x7e]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
    expect(r.redact(ascii)).toBe('{"v":"[REDACTED:P]"}');
    expect(
      r.redact(ascii.replace(/\\u([0-9a-f]{4})/g, (_m, h: string) => `\\u${h.toUpperCase()}`)),
    ).toBe('{"v":"[REDACTED:P]"}');
  });

  it('redacts each line of a multi-line value', () => {
    const pem =
      '-----BEGIN KEY-----\nMIIBOgIBAAJBAKj34GkxFhD9\r\nQ0NFQ0RFRkdISUpLTE1OT1BR\n-----END KEY-----';
    const r = createRedactor([{ name: 'PEM', value: pem }]);
    expect(r.redact(`x ${pem} y`)).toBe('x [REDACTED:PEM] y');
    const out = r.redact('line: QQ0NFQ0RFRkdISUpLTE1OT1BR here and MIIBOgIBAAJBAKj34GkxFhD9');
    expect(out).not.toContain('Q0NFQ0RFRkdISUpLTE1OT1BR');
    expect(out).not.toContain('MIIBOgIBAAJBAKj34GkxFhD9');
    // Lines shorter than the minimum are not patterns of their own.
    expect(createRedactor([{ name: 'S', value: 'longer line\nab' }]).redact('ab cd')).toBe('ab cd');
  });

  it('merges overlapping and adjacent matches into one marker', () => {
    const r = createRedactor([
      { name: 'A', value: 'alpha-bravo-charlie' },
      { name: 'B', value: 'charlie-delta-echo' },
      { name: 'C', value: 'foxtrot-golf' },
    ]);
    expect(r.redact('[alpha-bravo-charlie-delta-echo]')).toBe('[[REDACTED:A]]');
    expect(r.redact('<charlie-delta-echofoxtrot-golf>')).toBe('<[REDACTED:B]>');
    expect(r.redact('<foxtrot-golf foxtrot-golf>')).toBe('<[REDACTED:C] [REDACTED:C]>');
    // A value inside another value.
    const nested = createRedactor([
      { name: 'OUTER', value: 'xx-inner-secret-xx' },
      { name: 'INNER', value: 'inner-secret' },
    ]);
    expect(nested.redact('a xx-inner-secret-xx b inner-secret c')).toBe(
      'a [REDACTED:OUTER] b [REDACTED:INNER] c',
    );
  });

  it('redacts a later, longer match that starts before earlier ones', () => {
    const r = createRedactor([
      { name: 'SHORT', value: 'bcdef' },
      { name: 'LONG', value: 'abcdefghijkl' },
    ]);
    expect(r.redact('_abcdefghijkl_')).toBe('_[REDACTED:LONG]_');
    expect(r.redact('_abcdefghijk_')).toBe('_a[REDACTED:SHORT]ghijk_');
  });

  it('handles many secrets in one pass', () => {
    const secrets = Array.from({ length: 500 }, (_, i) => ({
      name: `S${i}`,
      value: `value-${i.toString(36)}-${(i * 7919).toString(16)}-tail`,
    }));
    const r = createRedactor(secrets);
    const text = secrets
      .map((s, i) => (i % 2 === 0 ? `<${s.value}>` : `<${b64(Buffer.from(s.value))}>`))
      .join(' ');
    const out = r.redact(text);
    for (const s of secrets) expect(out).not.toContain(s.value);
    expect(out.match(/\[REDACTED:S\d+\]/g)?.length).toBe(500);
    expect(out).toContain('<[REDACTED:S499]>');
  });

  it('keeps the name of the secret whose value it is when texts coincide', () => {
    const r = createRedactor([
      { name: 'MULTI', value: 'first line here\nsecond-line-value' },
      { name: 'SINGLE', value: 'second-line-value' },
    ]);
    expect(r.redact('x second-line-value')).toBe('x [REDACTED:SINGLE]');
  });

  it('registers base64 forms for every alignment', () => {
    const patterns = patternsFor(TOKEN);
    for (const lead of ['', 'a', 'ab']) {
      const encoded = b64(Buffer.from(lead + TOKEN + 'zz'));
      expect(patterns.some((p) => encoded.includes(p) && p.length > 30)).toBe(true);
    }
  });
});
