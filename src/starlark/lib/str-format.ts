import {
  composeSecret,
  repr,
  Secret,
  StarlarkError,
  str,
  type Thread,
  type Value,
} from '../values/index.js';

/**
 * `str.format`: `{}`, `{0}`, `{name}`, `!r`/`!s` conversions and `{{`/`}}` escapes (no format
 * specs beyond these). A secret in a `!s` field makes the result a secret of the same text.
 */
export function strFormat(
  thread: Thread,
  fmt: string,
  args: readonly Value[],
  kwargs: Array<[string, Value]> | null,
): Value {
  let out = '';
  /** The text before each secret, and the secret, once one is met. */
  let pieces: Array<string | Secret> | null = null;
  let auto = 0;
  let mode: 'none' | 'auto' | 'manual' = 'none';
  let i = 0;
  const n = fmt.length;
  while (i < n) {
    const c = fmt[i]!;
    if (c === '}') {
      if (fmt[i + 1] === '}') {
        out += '}';
        i += 2;
        continue;
      }
      throw new StarlarkError("format: single '}' in format");
    }
    if (c !== '{') {
      const next = nextBrace(fmt, i);
      out += fmt.slice(i, next);
      i = next;
      continue;
    }
    if (fmt[i + 1] === '{') {
      out += '{';
      i += 2;
      continue;
    }
    const close = fmt.indexOf('}', i + 1);
    if (close < 0) throw new StarlarkError("format: unmatched '{' in format");
    const field = fmt.slice(i + 1, close);
    if (field.includes('{'))
      throw new StarlarkError('format: nested replacement fields not supported');
    i = close + 1;
    let name = field;
    let conv = 's';
    const bang = field.indexOf('!');
    const colon = field.indexOf(':');
    if (bang >= 0 && (colon < 0 || bang < colon)) {
      name = field.slice(0, bang);
      const rest = field.slice(bang + 1);
      const c = colon < 0 ? rest : field.slice(bang + 1, colon);
      if (c !== 'r' && c !== 's') throw new StarlarkError(`format: unknown conversion "${c}"`);
      if (colon >= 0 && field.length > colon + 1) {
        throw new StarlarkError('format: format spec features not supported in replacement fields');
      }
      conv = c;
    } else if (colon >= 0) {
      name = field.slice(0, colon);
      if (field.length > colon + 1)
        throw new StarlarkError('format: format spec features not supported in replacement fields');
    }
    let v: Value;
    if (name === '') {
      if (mode === 'manual')
        throw new StarlarkError(
          'format: cannot switch from manual field specification to automatic field numbering',
        );
      mode = 'auto';
      if (auto >= args.length) throw new StarlarkError('format: tuple index out of range');
      v = args[auto++]!;
    } else if (/^\d+$/.test(name)) {
      if (mode === 'auto')
        throw new StarlarkError(
          'format: cannot switch from automatic field numbering to manual field specification',
        );
      mode = 'manual';
      const k = Number(name);
      if (k >= args.length) throw new StarlarkError('format: tuple index out of range');
      v = args[k]!;
    } else {
      if (name.includes('.'))
        throw new StarlarkError('format: syntax x.y is not supported in replacement fields');
      if (name.includes('['))
        throw new StarlarkError('format: syntax a[i] is not supported in replacement fields');
      const kv = kwargs?.find(([k]) => k === name);
      if (kv === undefined) throw new StarlarkError(`format: keyword ${name} not found`);
      v = kv[1];
    }
    if (v instanceof Secret && conv === 's') {
      (pieces ??= []).push(out, v);
      out = '';
      continue;
    }
    out += conv === 'r' ? repr(v) : str(v);
    if (out.length > 1 << 20) thread.alloc(out.length);
  }
  if (pieces === null) return out;
  pieces.push(out);
  return composeSecret(pieces, thread);
}

function nextBrace(s: string, from: number): number {
  for (let i = from; i < s.length; i++) {
    const c = s[i];
    if (c === '{' || c === '}') return i;
  }
  return s.length;
}
