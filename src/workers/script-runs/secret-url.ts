import { StarlarkError, type Secret, type SecretAtom } from '../../starlark/values/index.js';

/**
 * A URL built from a secret: the text sent, and the text shown in errors (`<secret NAME>` where
 * a secret's text is), with each value found where the WHATWG parser puts it.
 */
export interface PlacedUrl {
  url: string;
  shown: string;
  /** The host came out of a secret (the whole URL was one): errors must not name it. */
  secretHost: boolean;
  /** Each secret's text as put in the URL (and as it is), with its handle, for error texts. */
  texts: Array<[string, string]>;
}

const utf8 = new TextEncoder();

/**
 * Characters a secret's text is percent-encoded for in each component: the WHATWG path and
 * special-query percent-encode sets, plus what would make the server read back other text than
 * the value — `%` (else decoded as an escape), `\` (a `/` in http(s) paths), and in the query
 * `&`, `+`, `=` and `;` (parameter syntax, `+` a space to form decoders).
 */
const pathSet = /[\0-\x20"#<>?`{}^\x7f%\\]/;
const querySet = /[\0-\x20"#<>'\x7f%&+=;]/;

/** `text` percent-encoded (UTF-8, upper-case hex) where `set` matches or it is not ASCII. */
export function percentEncode(text: string, set: RegExp): string {
  let out = '';
  for (const ch of text) {
    if (ch.length === 1 && ch.charCodeAt(0) < 0x80 && !set.test(ch)) {
      out += ch;
      continue;
    }
    for (const byte of utf8.encode(ch))
      out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const label = (atom: SecretAtom) => `<secret ${atom.secretNames.join(', ')}>`;

/**
 * Places the secrets of `url` (literal text and atoms, in order): the literal text is parsed
 * with a stand-in for each atom, to see which component each lands in; each value then goes
 * into that component percent-encoded for it, so it stays there whatever it holds. A secret in
 * the fragment is refused (never sent); one in the scheme, host or port means the URL itself is
 * secret (a webhook URL), which is parsed whole.
 */
export function placeUrl(
  fn: string,
  url: Secret,
  atomText: (atom: SecretAtom) => string,
): PlacedUrl {
  const literal = url.parts.filter((p) => typeof p === 'string').join('');
  let mark = 'stewardsecret';
  while (literal.toLowerCase().includes(mark)) mark += 'x';
  const atoms: SecretAtom[] = [];
  const template = url.parts
    .map((p) => {
      if (typeof p === 'string') return p;
      atoms.push(p);
      return `${mark}${atoms.length - 1}z`;
    })
    .join('');
  const shownWhole = url.parts.map((p) => (typeof p === 'string' ? p : label(p))).join('');
  let parsed: URL | null = null;
  try {
    parsed = new URL(template);
  } catch {
    parsed = null;
  }
  const inside = (s: string, i: number) => s.includes(`${mark}${i}z`);
  const whole =
    parsed === null ||
    atoms.some(
      (_, i) =>
        inside(parsed.protocol, i) ||
        inside(parsed.username, i) ||
        inside(parsed.password, i) ||
        inside(parsed.host, i),
    );
  const texts = atoms.map((atom): [string, string] => [atomText(atom), label(atom)]);
  if (whole) {
    const text = url.parts.map((p) => (typeof p === 'string' ? p : atomText(p))).join('');
    try {
      return { url: new URL(text).href, shown: shownWhole, secretHost: true, texts };
    } catch {
      throw new StarlarkError(`${fn}: url ${shownWhole} is not a valid URL`);
    }
  }
  const target = parsed as URL;
  const sets = atoms.map((atom, i) => {
    if (inside(target.hash, i)) {
      throw new StarlarkError(
        `${fn}: ${label(atom)} is in the URL's fragment, which is never sent; place a secret in the path or the query`,
      );
    }
    return inside(target.pathname, i) ? pathSet : querySet;
  });
  // One pass each, so no value is searched for stand-ins after it is put in.
  const stands = new RegExp(`${mark}(\\d+)z`, 'g');
  const sent = target.href.replace(stands, (_, i: string) => {
    const [text, shown] = texts[Number(i)]!;
    const encoded = percentEncode(text, sets[Number(i)]!);
    texts.push([encoded, shown]);
    return encoded;
  });
  const shown = target.href.replace(stands, (_, i: string) => label(atoms[Number(i)]!));
  // Each value was encoded to stay in its component: the origin checked is the one parsed above.
  if (new URL(sent).origin !== target.origin) {
    throw new StarlarkError(`${fn}: url ${shown} changed its host when its secrets were placed`);
  }
  return { url: sent, shown, secretHost: false, texts };
}
