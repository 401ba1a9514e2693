import type { Redactor } from './redactor.js';

/**
 * A copy of a JSON-like value with every string (keys included) redacted. Inputs are never
 * modified: redaction applies to what leaves, not to what is stored.
 */
export function redactDeep<T>(value: T, redactor: Redactor): T {
  if (redactor.automaton === null) return value;
  const seen = new WeakMap<object, unknown>();
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redactor.redact(v);
    if (typeof v !== 'object' || v === null) return v;
    const done = seen.get(v);
    if (done !== undefined) return done;
    if (Array.isArray(v)) {
      const copy: unknown[] = [];
      seen.set(v, copy);
      for (const item of v) copy.push(walk(item));
      return copy;
    }
    if (!isPlain(v)) return v;
    const copy: Record<string, unknown> = {};
    seen.set(v, copy);
    for (const [key, item] of Object.entries(v)) copy[redactor.redact(key)] = walk(item);
    return copy;
  };
  return walk(value) as T;
}

function isPlain(v: object): boolean {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}
