import { unpackArgs, wantString } from '../values/ops.js';
import {
  builtin,
  Dict,
  formatFloatShortest,
  Module,
  None,
  composeSecret,
  Secret,
  SFloat,
  StarlarkError,
  StarlarkObject,
  Tuple,
  List,
  typeName,
  type SecretAtom,
  type Thread,
  type Value,
} from '../values/index.js';
import { decodeJSON } from './json-decode.js';

/** The `json` module: encode, decode, indent, encode_indent (starlark-go semantics). */

class EncodeError extends Error {}

/**
 * What JSON encoding writes for a secret: nothing a script can see (`json.encode` refuses it), but
 * a host encoding a value it sends has its own atom quote the text when it places it.
 */
type QuoteSecret = ((s: Secret) => SecretAtom) | null;
type Out = Array<string | SecretAtom>;

/** Unpaired UTF-16 surrogates have no UTF-8 encoding; Go's encoder substitutes U+FFFD. */
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function encodeValue(
  v: Value,
  out: Out,
  path: StarlarkObject[],
  thread: Thread,
  quote: QuoteSecret,
): void {
  switch (typeof v) {
    case 'string':
      out.push(JSON.stringify(v.replace(loneSurrogate, '\ufffd')));
      return;
    case 'boolean':
      out.push(v ? 'true' : 'false');
      return;
    case 'number':
    case 'bigint':
      out.push(String(v));
      return;
  }
  if (v === None) {
    out.push('null');
    return;
  }
  if (v instanceof SFloat) {
    if (!Number.isFinite(v.v))
      throw new EncodeError(`cannot encode non-finite float ${formatFloatShortest(v.v)}`);
    out.push(formatFloatShortest(v.v));
    return;
  }
  const o = v as StarlarkObject;
  if (o instanceof Secret) {
    if (quote === null) throw o.refuse('JSON encoding');
    out.push(quote(o));
    return;
  }
  if (path.includes(o)) throw new EncodeError('cycle in JSON structure');
  path.push(o);
  thread.steps(1);
  try {
    encodeObject(o, out, path, thread, quote);
  } finally {
    path.pop();
  }
}

function nested(prefix: string, f: () => void): void {
  try {
    f();
  } catch (e) {
    if (e instanceof EncodeError) throw new EncodeError(`${prefix}: ${e.message}`);
    throw e;
  }
}

function encodeObject(
  o: StarlarkObject,
  out: Out,
  path: StarlarkObject[],
  thread: Thread,
  quote: QuoteSecret,
): void {
  if (o instanceof Dict) {
    const entries = o.entries();
    for (const [k] of entries)
      if (typeof k !== 'string') throw new EncodeError(`dict has ${typeName(k)} key, want string`);
    entries.sort(([a], [b]) => ((a as string) < (b as string) ? -1 : 1));
    out.push('{');
    entries.forEach(([k, val], i) => {
      if (i > 0) out.push(',');
      out.push(JSON.stringify(k), ':');
      nested(`in dict key ${JSON.stringify(k)}`, () => encodeValue(val, out, path, thread, quote));
    });
    out.push('}');
    return;
  }
  if (o instanceof List || o instanceof Tuple) {
    const kind = o instanceof List ? 'list' : 'tuple';
    out.push('[');
    o.items.forEach((x, i) => {
      if (i > 0) out.push(',');
      nested(`at ${kind} index ${i}`, () => encodeValue(x, out, path, thread, quote));
    });
    out.push(']');
    return;
  }
  const it = o.iterate();
  if (it !== undefined) {
    out.push('[');
    try {
      let i = 0;
      for (let x = it.next(); x !== undefined; x = it.next(), i++) {
        if (i > 0) out.push(',');
        nested(`at ${o.typeName} index ${i}`, () => encodeValue(x!, out, path, thread, quote));
      }
    } finally {
      it.done();
    }
    out.push(']');
    return;
  }
  const names = o.attrNames();
  if (names.length > 0 && !(o instanceof Module)) {
    out.push('{');
    [...names].sort().forEach((name, i) => {
      if (i > 0) out.push(',');
      out.push(JSON.stringify(name), ':');
      nested(`in field .${name}`, () =>
        encodeValue(o.getAttr(name, thread) ?? None, out, path, thread, quote),
      );
    });
    out.push('}');
    return;
  }
  throw new EncodeError(`cannot encode ${o.typeName} as JSON`);
}

function encodeToString(fnName: string, v: Value, thread: Thread): string {
  return encodeParts(fnName, v, thread, null).join('');
}

function encodeParts(fnName: string, v: Value, thread: Thread, quote: QuoteSecret): Out {
  const out: Out = [];
  try {
    encodeValue(v, out, [], thread, quote);
  } catch (e) {
    if (e instanceof EncodeError) throw new StarlarkError(`${fnName}: ${e.message}`);
    throw e;
  }
  return out;
}

/**
 * JSON text of `v` exactly as `json.encode` writes it (errors name `fnName`): for host modules
 * that encode a value they were handed, so a script meets one JSON encoding everywhere. With
 * `quote`, the host's atom for a secret's JSON string, the text is a secret when `v` holds any.
 */
export function encodeJSON(
  fnName: string,
  v: Value,
  thread: Thread,
  quote: QuoteSecret = null,
): Value {
  const out = encodeParts(fnName, v, thread, quote);
  if (out.every((part) => typeof part === 'string')) return out.join('');
  return composeSecret([new Secret(out)], thread);
}

/** Re-indents valid JSON text the way Go's json.Indent does (empty containers stay `[]`/`{}`). */
function indentText(
  fnName: string,
  text: string,
  prefix: string,
  indent: string,
  thread: Thread,
): string {
  try {
    decodeJSON(fnName, text, (n) => thread.steps(n));
  } catch (e) {
    if (e instanceof StarlarkError)
      throw new StarlarkError(e.message.replace(/: at offset/, ': invalid character at offset'));
    throw e;
  }
  let out = '';
  let depth = 0;
  const newline = (): string => '\n' + prefix + indent.repeat(depth);
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') continue;
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      let j = i + 1;
      while (/\s/.test(text[j] ?? '')) j++;
      if (text[j] === close) {
        out += c + close;
        i = j;
        continue;
      }
      depth++;
      out += c + newline();
    } else if (c === '}' || c === ']') {
      depth--;
      out += newline() + c;
    } else if (c === ',') out += ',' + newline();
    else if (c === ':') out += ': ';
    else out += c;
  }
  return out;
}

const encode = builtin('json.encode', (thread, args, kwargs) => {
  const [x] = unpackArgs('json.encode', args, kwargs, ['x']);
  return encodeToString('json.encode', x!, thread);
});

const decode = builtin('json.decode', (thread, args, kwargs) => {
  // `x` is positional-only, so that `default` is the only keyword.
  const [dflt] = unpackArgs('json.decode', args.slice(1), kwargs, ['default?']);
  if (args.length === 0) throw new StarlarkError('json.decode: missing argument for x');
  const text = wantString('json.decode', 'x', args[0]!);
  try {
    return decodeJSON('json.decode', text, (n) => thread.steps(n));
  } catch (e) {
    if (dflt !== undefined && e instanceof StarlarkError) return dflt;
    throw e;
  }
});

function indentOptions(fnName: string, kwargs: Array<[string, Value]> | null): [string, string] {
  let prefix = '';
  let indent = '\t';
  for (const [k, v] of kwargs ?? []) {
    if (k === 'prefix') prefix = wantString(fnName, 'prefix', v);
    else if (k === 'indent') indent = wantString(fnName, 'indent', v);
    else throw new StarlarkError(`${fnName}: unexpected keyword argument ${k}`);
  }
  return [prefix, indent];
}

const indent = builtin('json.indent', (thread, args, kwargs) => {
  if (args.length !== 1)
    throw new StarlarkError(`json.indent: got ${args.length} arguments, want 1`);
  const text = wantString('json.indent', 'str', args[0]!);
  const [prefix, ind] = indentOptions('json.indent', kwargs);
  return indentText('json.indent', text, prefix, ind, thread);
});

const encodeIndent = builtin('json.encode_indent', (thread, args, kwargs) => {
  if (args.length !== 1)
    throw new StarlarkError(`json.encode_indent: got ${args.length} arguments, want 1`);
  const [prefix, ind] = indentOptions('json.encode_indent', kwargs);
  const text = encodeToString('json.encode_indent', args[0]!, thread);
  return indentText('json.encode_indent', text, prefix, ind, thread);
});

/** A fresh `json` module value. */
export function jsonModule(): Module {
  const m = new Module('json', { decode, encode, encode_indent: encodeIndent, indent });
  m.freeze();
  return m;
}
