import {
  None,
  Secret,
  StarlarkError,
  type SecretAtom,
  type Value,
} from '../../starlark/values/index.js';

/**
 * The host's half of opaque secrets (`src/starlark/values/secret.ts`): the atoms a run's
 * `secrets.get`, `base64.encode` and `http.post` make, and the vault that alone knows the values.
 * Atoms hold names and other atoms, never a value, so nothing the interpreter holds, prints or
 * fails with can carry one; the vault turns a secret back into text only for the host code that
 * places it in a request or keys an HMAC with it.
 */

/** `secrets.get(NAME)`. */
class NamedSecret implements SecretAtom {
  readonly secretNames: readonly string[];
  constructor(readonly name: string) {
    this.secretNames = [name];
  }
}

/** `base64.encode` of a secret: encoded when its text is needed. */
class Base64Secret implements SecretAtom {
  readonly secretNames: readonly string[];
  constructor(
    readonly inner: Secret,
    readonly urlSafe: boolean,
  ) {
    this.secretNames = inner.names();
  }
}

/** A secret inside a value the host encodes as JSON (`http.post` of a dict): a JSON string. */
class JsonStringSecret implements SecretAtom {
  readonly secretNames: readonly string[];
  constructor(readonly inner: Secret) {
    this.secretNames = inner.names();
  }
}

/** Unpaired UTF-16 surrogates have no UTF-8 encoding; `json.encode` writes U+FFFD for them. */
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export interface SecretVault {
  /** `secrets.get(NAME)` of a declared name: a handle, or None when no value is set. */
  handle(name: string): Value;
  /** The text `s` stands for. Host code only, where it sends or signs it. */
  text(s: Secret): string;
  /** The text of one atom of a secret's parts. */
  atomText(atom: SecretAtom): string;
  /** `base64.encode(s)`: a secret of the encoded text. */
  base64(s: Secret, urlSafe: boolean): Secret;
  /** The atom `http.post` encodes a secret inside a dict body with. */
  jsonString(s: Secret): SecretAtom;
}

/** Base64 of `bytes`, padded in both alphabets (as Python's and Go's URL-safe encoders pad). */
export function base64Of(bytes: Uint8Array, urlSafe: boolean): string {
  const encoded = Buffer.from(bytes).toString('base64');
  return urlSafe ? encoded.replace(/\+/g, '-').replace(/\//g, '_') : encoded;
}

/** One run's secrets: `values` are those it declares (null when declared but not set). */
export function createSecretVault(values: ReadonlyMap<string, string | null>): SecretVault {
  const atomText = (atom: SecretAtom): string => {
    if (atom instanceof NamedSecret) {
      const value = values.get(atom.name);
      // A handle exists only for a value this run was given; anything else is a host bug.
      if (value === undefined || value === null) {
        throw new StarlarkError(`secret ${atom.name} has no value in this run`);
      }
      return value;
    }
    if (atom instanceof Base64Secret) {
      return base64Of(Buffer.from(text(atom.inner), 'utf8'), atom.urlSafe);
    }
    if (atom instanceof JsonStringSecret) {
      return JSON.stringify(text(atom.inner).replace(loneSurrogate, '\ufffd'));
    }
    throw new StarlarkError(`${atom.secretNames.join(', ')}: not a secret of this run`);
  };
  const text = (s: Secret): string => {
    let out = '';
    for (const part of s.parts) out += typeof part === 'string' ? part : atomText(part);
    return out;
  };
  return {
    handle(name) {
      const value = values.get(name);
      return value === undefined || value === null ? None : new Secret([new NamedSecret(name)]);
    },
    text,
    atomText,
    base64: (s, urlSafe) => new Secret([new Base64Secret(s, urlSafe)]),
    jsonString: (s) => new JsonStringSecret(s),
  };
}

/**
 * What an administrator is told beside a run that read a secret: what the script may do
 * instead, and the switch that gives scripts plain values again.
 */
export const secretReadHint =
  ' (a script may join a secret with strings — +, %, .format(), join — and pass it to hmac, base64.encode or http, as a header value, in the URL, or as the body: text, or a dict or list that http.post sends as JSON instead of json.encode; it may not read it. If this script must read secret values, an administrator can set scripts.secret_values: plain in the configuration, which gives every script the plain values)';
