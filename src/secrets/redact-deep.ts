import type { Redactor } from './redactor.js';

/**
 * A copy of a JSON-like value with every string (keys included) redacted. Inputs are never
 * modified: redaction applies to what leaves, not to what is stored. Takes a redactor, or the
 * `redact` function of a process's redaction service (which follows the current secret set).
 */
export function redactDeep<T>(value: T, redactor: Redactor | ((text: string) => string)): T {
  if (typeof redactor !== 'function' && redactor.automaton === null) return value;
  const redact =
    typeof redactor === 'function' ? redactor : (text: string) => redactor.redact(text);
  const seen = new WeakMap<object, unknown>();
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redact(v);
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
    for (const [key, item] of Object.entries(v)) {
      // defineProperty keeps a "__proto__" key (a script may return one) as data.
      Object.defineProperty(copy, redact(key), {
        value: walk(item),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  };
  return walk(value) as T;
}

function isPlain(v: object): boolean {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}
