import { describe, expect, it } from 'vitest';
import { createRedactor, emptyRedactor } from '../../src/secrets/redactor.js';
import { createStreamRedactor } from '../../src/secrets/stream-redactor.js';

const redactor = createRedactor([
  { name: 'TOKEN', value: 'tok-1234567890' },
  { name: 'PASS', value: 'correct-horse' },
]);

/** Feeds `chunks` and returns what was released after each push, then the end. */
function feed(chunks: string[]) {
  const stream = createStreamRedactor(redactor);
  const released = chunks.map((chunk) => stream.push(chunk));
  return { released, rest: stream.end() };
}

describe('createStreamRedactor', () => {
  it('gives the same text as redact() for every way of cutting it in three', () => {
    const text = 'a tok-1234567890 b correct-horsetok-1234567890 c dG9rLTEyMzQ1Njc4OTA= d';
    const expected = redactor.redact(text);
    expect(expected).toBe('a [REDACTED:TOKEN] b [REDACTED:PASS] c [REDACTED:TOKEN] d');
    for (let i = 0; i <= text.length; i += 3) {
      for (let j = i; j <= text.length; j += 5) {
        const { released, rest } = feed([text.slice(0, i), text.slice(i, j), text.slice(j)]);
        expect(released.join('') + rest, `${i}/${j}`).toBe(expected);
      }
    }
  });

  it('never releases part of a secret', () => {
    const text = 'xx correct-horse yy';
    for (let cut = 1; cut < text.length; cut++) {
      const { released } = feed([text.slice(0, cut)]);
      const out = released[0] ?? '';
      expect(out, String(cut)).not.toContain('correct');
      expect('xx [REDACTED:PASS] yy'.startsWith(out), `${cut}: ${out}`).toBe(true);
    }
  });

  it('releases at end() a held-back tail that never became a secret', () => {
    const { released, rest } = feed(['value tok-12345']);
    expect(released).toEqual(['value ']);
    expect(rest).toBe('tok-12345');
  });

  it('redacts at end() a secret that closes the stream', () => {
    const { released, rest } = feed(['see ', 'correct-horse']);
    expect(released.join('') + rest).toBe('see [REDACTED:PASS]');
  });

  it('holds a found secret while a neighbour could still merge with it', () => {
    const stream = createStreamRedactor(redactor);
    const first = stream.push('<correct-horse');
    expect(first).toBe('<');
    const second = stream.push('tok-1234567890>');
    expect(first + second + stream.end()).toBe('<[REDACTED:PASS]>');
  });

  it('returns nothing for empty chunks and can be reused after end()', () => {
    const stream = createStreamRedactor(redactor);
    expect(stream.push('')).toBe('');
    expect(stream.push('half correct-')).toBe('half ');
    expect(stream.end()).toBe('correct-');
    // A fresh start: the earlier half must not complete a match with the new text.
    expect(stream.push('horse ') + stream.end()).toBe('horse ');
    expect(stream.push('correct-horse!') + stream.end()).toBe('[REDACTED:PASS]!');
  });

  it('catches a multi-line secret split at its line break', () => {
    const pem = createRedactor([{ name: 'KEY', value: 'line-one-abc\nline-two-def' }]);
    const stream = createStreamRedactor(pem);
    const out = stream.push('k=line-one-abc\n') + stream.push('line-two-def;') + stream.end();
    expect(out).toBe('k=[REDACTED:KEY];');
  });
});

describe('createStreamRedactor against redact() on encoded values', () => {
  const TOKEN = 'sk-live_9f8e7d6c5b4a3210?+/=';
  const M = '[REDACTED:API_TOKEN]';
  const b64 = (bytes: Buffer) => bytes.toString('base64');
  const secrets = [
    { name: 'API_TOKEN', value: TOKEN },
    { name: 'OTHER', value: 'another-secret-value' },
  ];
  const r = createRedactor(secrets);
  const text = `start ${TOKEN} mid ${b64(Buffer.from(`q${TOKEN}`))} and another-secret-value${TOKEN} end`;
  const expected = r.redact(text);

  it('redacts a secret split across two chunks at every split point', () => {
    for (let split = 0; split <= text.length; split++) {
      const stream = createStreamRedactor(r);
      const out = stream.push(text.slice(0, split)) + stream.push(text.slice(split)) + stream.end();
      expect(out, `split at ${split}`).toBe(expected);
    }
  });

  it('redacts when fed one character at a time', () => {
    const stream = createStreamRedactor(r);
    let out = '';
    for (const ch of text) out += stream.push(ch);
    out += stream.end();
    for (const s of secrets) expect(out).not.toContain(s.value);
    expect(out.replace(/\[REDACTED:\w+\]/g, 'M')).toBe(expected.replace(/\[REDACTED:\w+\]/g, 'M'));
  });

  it('holds back only a tail that may begin a secret', () => {
    const stream = createStreamRedactor(r);
    expect(stream.push('plain text with nothing ')).toBe('plain text with nothing ');
    expect(stream.push('then sk-li')).toBe('then ');
    expect(stream.push('ve_9f8e7d6c5b4a3210?+/= after')).toBe(`${M} after`);
    expect(stream.end()).toBe('');
  });

  it('matches redact() for random chunkings of text full of secrets', () => {
    const many = Array.from({ length: 40 }, (_, i) => ({
      name: `K${i}`,
      value: `${'abcdefgh'[i % 8]}key-${i}-${'xyz'.repeat(1 + (i % 4))}`,
    }));
    const rm = createRedactor(many);
    let seed = 12345;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (let round = 0; round < 50; round++) {
      let text = '';
      while (text.length < 2000) {
        const s = many[Math.floor(random() * many.length)] as { value: string };
        const forms = [
          s.value,
          b64(Buffer.from(`.${s.value}`)),
          Buffer.from(s.value).toString('hex'),
          'filler ',
          'akey-1',
        ];
        text += forms[Math.floor(random() * forms.length)];
      }
      const stream = createStreamRedactor(rm);
      let out = '';
      for (let at = 0; at < text.length;) {
        const size = 1 + Math.floor(random() * 60);
        out += stream.push(text.slice(at, at + size));
        at += size;
      }
      out += stream.end();
      expect(out).toBe(rm.redact(text));
    }
  });

  it('passes text through when there are no secrets', () => {
    const stream = createStreamRedactor(emptyRedactor);
    expect(stream.push('abc')).toBe('abc');
    expect(stream.end()).toBe('');
  });
});
