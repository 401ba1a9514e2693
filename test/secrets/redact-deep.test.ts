import { describe, expect, it } from 'vitest';
import { redactDeep } from '../../src/secrets/redact-deep.js';
import { createRedactor, emptyRedactor } from '../../src/secrets/redactor.js';

const TOKEN = 'sk-live_9f8e7d6c5b4a3210?+/=';
const M = '[REDACTED:API_TOKEN]';
const redactor = createRedactor([{ name: 'API_TOKEN', value: TOKEN }]);

describe('redactDeep', () => {
  it('redacts every string inside, keys included, without touching the input', () => {
    const input = { a: TOKEN, list: [1, `x${TOKEN}`, { deep: [TOKEN] }], [TOKEN]: true, n: null };
    const out = redactDeep(input, redactor);
    expect(out).toEqual({ a: M, list: [1, `x${M}`, { deep: [M] }], [M]: true, n: null });
    expect(input.a).toBe(TOKEN);
  });

  it('takes a redact function too, and keeps a "__proto__" key as data', () => {
    const input = JSON.parse(`{"__proto__": {"k": "${TOKEN}"}, "v": "${TOKEN}"}`) as object;
    const out = redactDeep(input, (text) => redactor.redact(text));
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__', 'v']);
    expect(JSON.stringify(out)).toBe(
      JSON.stringify({ v: M }).replace('{', `{"__proto__":{"k":"${M}"},`),
    );
  });

  it('redacts a bare string and passes numbers, booleans, null and undefined through', () => {
    expect(redactDeep(`token=${TOKEN}`, redactor)).toBe(`token=${M}`);
    expect(redactDeep(42, redactor)).toBe(42);
    expect(redactDeep(false, redactor)).toBe(false);
    expect(redactDeep(null, redactor)).toBeNull();
    expect(redactDeep(undefined, redactor)).toBeUndefined();
  });

  it('answers the value itself when the redactor has no secrets', () => {
    const input = { a: [TOKEN] };
    expect(redactDeep(input, emptyRedactor)).toBe(input);
  });

  it('copies even when nothing matches, so the answer never aliases the input', () => {
    const input = { a: ['plain'], b: { c: 'text' } };
    const out = redactDeep(input, redactor);
    expect(out).toEqual(input);
    expect(out).not.toBe(input);
    expect(out.a).not.toBe(input.a);
    expect(out.b).not.toBe(input.b);
  });

  it('keeps shared references shared and survives cycles', () => {
    const shared = { s: TOKEN };
    const cyclic: Record<string, unknown> = { shared, again: shared, list: [TOKEN] };
    cyclic.self = cyclic;
    (cyclic.list as unknown[]).push(cyclic.list);
    const out = redactDeep(cyclic, redactor);
    expect(out.self).toBe(out);
    expect(out.shared).toBe(out.again);
    expect(out.shared).toEqual({ s: M });
    const list = out.list as unknown[];
    expect(list[0]).toBe(M);
    expect(list[1]).toBe(list);
    expect(cyclic.shared).toBe(shared);
  });

  it('copies objects without a prototype as plain objects', () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare.v = TOKEN;
    const out = redactDeep(bare, redactor);
    expect(out).toEqual({ v: M });
  });

  it('leaves class instances (dates, buffers, maps) as they are', () => {
    const date = new Date(0);
    const buffer = Buffer.from(TOKEN);
    const map = new Map([['k', TOKEN]]);
    const out = redactDeep({ date, buffer, map }, redactor);
    expect(out.date).toBe(date);
    expect(out.buffer).toBe(buffer);
    expect(out.map).toBe(map);
  });

  it('follows the function it is given, call by call', () => {
    let calls = 0;
    const out = redactDeep({ a: 'x', b: ['y'] }, (text) => `${text}${++calls}`);
    expect(out).toEqual({ a1: 'x2', b3: ['y4'] });
  });
});
