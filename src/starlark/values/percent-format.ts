import { floatToInt, intToFloat } from './arith.js';
import { formatFloatE, formatFloatF, formatFloatShortest } from './format-float.js';
import { repr, str } from './repr.js';
import { composeSecret, refuseSecret, Secret } from './secret.js';
import { Tuple } from './tuple.js';
import { typeName } from './type-name.js';
import { SFloat, StarlarkError, StarlarkObject, type Thread, type Value } from './value.js';

/** Integer operand of %d/%o/%x; floats are truncated as in starlark-go. */
function intOperand(conv: string, v: Value): number | bigint {
  if (typeof v === 'number' || typeof v === 'bigint') return v;
  if (v instanceof SFloat) return floatToInt(v.v);
  if (typeof v === 'boolean') throw new StarlarkError('cannot convert bool to int');
  refuseSecret(v, `%${conv}`);
  throw new StarlarkError(`%${conv} format requires integer: ${typeName(v)}`);
}

function floatOperand(conv: string, v: Value): number {
  if (typeof v === 'number' || typeof v === 'bigint') return intToFloat(v);
  if (v instanceof SFloat) return v.v;
  refuseSecret(v, `%${conv}`);
  throw new StarlarkError(
    `%${conv} format requires float, not ${typeName(v) === 'string' ? 'str' : typeName(v)}`,
  );
}

function radix(n: number | bigint, base: number, upper: boolean): string {
  const s = n.toString(base);
  return upper ? s.toUpperCase() : s;
}

function formatOne(conv: string, v: Value): string {
  switch (conv) {
    case 's':
      return str(v);
    case 'r':
      return repr(v);
    case 'd':
    case 'i':
      return String(intOperand(conv, v));
    case 'o':
      return radix(intOperand(conv, v), 8, false);
    case 'x':
      return radix(intOperand(conv, v), 16, false);
    case 'X':
      return radix(intOperand(conv, v), 16, true);
    case 'e':
    case 'E':
      return formatFloatE(floatOperand(conv, v), 6, conv === 'E');
    case 'f':
    case 'F':
      return formatFloatF(floatOperand(conv, v), 6);
    case 'g':
    case 'G': {
      const f = floatOperand(conv, v);
      const s = formatFloatShortest(f);
      return conv === 'G' ? s.toUpperCase() : s;
    }
    case 'c':
      return charOperand(v);
    default:
      throw new StarlarkError(`unknown conversion %${conv}`);
  }
}

function charOperand(v: Value): string {
  if (typeof v === 'string') {
    const cp = v.codePointAt(0);
    if (cp === undefined || String.fromCodePoint(cp).length !== v.length) {
      throw new StarlarkError(`%c format requires a single-character string`);
    }
    return v;
  }
  if (typeof v === 'number') {
    if (v < 0 || v > 0x10ffff)
      throw new StarlarkError(`%c format requires a valid Unicode code point, got ${v}`);
    // Surrogates are not characters; Go substitutes U+FFFD for them.
    return v >= 0xd800 && v <= 0xdfff ? '\ufffd' : String.fromCodePoint(v);
  }
  refuseSecret(v, '%c');
  throw new StarlarkError(`%c format requires int or single-character string, not ${typeName(v)}`);
}

/**
 * `format % args`: Python-style printf with a tuple, a single value, or a mapping for
 * `%(name)s`. A secret formatted by `%s` makes the result a secret of the same text.
 */
export function formatPercent(format: string, args: Value, thread: Thread | null = null): Value {
  const list: readonly Value[] = args instanceof Tuple ? args.items : [args];
  let next = 0;
  let out = '';
  /** The text before each secret, and the secret, once one is met. */
  let pieces: Array<string | Secret> | null = null;
  let i = 0;
  for (;;) {
    const j = format.indexOf('%', i);
    if (j < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, j);
    i = j + 1;
    if (i >= format.length) throw new StarlarkError('incomplete format');
    if (format[i] === '%') {
      out += '%';
      i++;
      continue;
    }
    let arg: Value;
    if (format[i] === '(') {
      const close = format.indexOf(')', i);
      if (close < 0) throw new StarlarkError('incomplete format key');
      const key = format.slice(i + 1, close);
      i = close + 1;
      if (!isMapping(args)) throw new StarlarkError('format requires a mapping');
      arg = (args as StarlarkObject).getIndex(key)!;
    } else {
      if (next >= list.length) throw new StarlarkError('not enough arguments for format string');
      arg = list[next++]!;
    }
    if (i >= format.length) throw new StarlarkError('incomplete format');
    if (arg instanceof Secret && format[i] === 's') {
      (pieces ??= []).push(out, arg);
      out = '';
    } else out += formatOne(format[i]!, arg);
    i++;
  }
  if (next < list.length && !(next === 0 && isMapping(args))) {
    throw new StarlarkError('too many arguments for format string');
  }
  if (pieces === null) return out;
  pieces.push(out);
  return composeSecret(pieces, thread);
}

function isMapping(v: Value): boolean {
  return v instanceof StarlarkObject && v.typeName === 'dict';
}
