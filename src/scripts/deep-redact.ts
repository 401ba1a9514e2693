/** A copy of JSON-like data with every string (keys too) passed through `redact`. */
export function redactJson(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => redactJson(v, redact));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    Object.defineProperty(out, redact(k), {
      value: redactJson(v, redact),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
