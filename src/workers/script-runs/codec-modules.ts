import { createHmac } from 'node:crypto';
import {
  builtin,
  Bytes,
  defineModule,
  Secret,
  StarlarkError,
  typeName,
  type Module,
  type Value,
} from '../../starlark/values/index.js';
import { unpackArgs, wantBool } from '../../starlark/values/unpack.js';
import { base64Of, type SecretVault } from './secret-handles.js';

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Standard or URL-safe alphabet, padded or not (a padded text is whole quads). */
const standard = /^[A-Za-z0-9+/]*={0,2}$/;
const urlSafe = /^[A-Za-z0-9_-]*={0,2}$/;

/**
 * `hmac` and `base64`: signing and encoding for scripts that hold secrets as handles. An HMAC
 * keyed by a secret is a plain digest (the point of signing, and no way back to the key); its
 * message may be a secret only under a secret key, since a digest of a secret under a key the
 * script knows would let anyone test guesses of it. `base64.encode` of a secret is a secret;
 * `base64.decode` of one would read it.
 */
export function createCodecModules(vault: SecretVault | null): { hmac: Module; base64: Module } {
  const bytesOf = (fn: string, param: string, v: Value): Buffer => {
    if (typeof v === 'string') return Buffer.from(v, 'utf8');
    if (v instanceof Bytes) return Buffer.from(v.data);
    if (v instanceof Secret) {
      if (vault === null) throw v.refuse(fn);
      return Buffer.from(vault.text(v), 'utf8');
    }
    throw new StarlarkError(`${fn}: for parameter ${param}: got ${typeName(v)}, want string`);
  };
  const digest = (algorithm: 'sha256' | 'sha1') => {
    const fn = `hmac.${algorithm}`;
    return builtin(algorithm, (_t, args, kwargs) => {
      const [key, msg] = unpackArgs(fn, args, kwargs, ['key', 'msg']) as [Value, Value];
      if (msg instanceof Secret && !(key instanceof Secret)) {
        throw msg.refuse(`${fn} of a secret message under a plain key`);
      }
      return createHmac(algorithm, bytesOf(fn, 'key', key))
        .update(bytesOf(fn, 'msg', msg))
        .digest('hex');
    });
  };

  const encode = builtin('encode', (_t, args, kwargs) => {
    const [s, safe] = unpackArgs('base64.encode', args, kwargs, ['s', 'url_safe?']);
    const url = safe === undefined ? false : wantBool('base64.encode', 'url_safe', safe);
    if (s instanceof Secret) {
      if (vault === null) throw s.refuse('base64.encode');
      return vault.base64(s, url);
    }
    if (s instanceof Bytes) return base64Of(s.data, url);
    if (typeof s !== 'string') {
      throw new StarlarkError(
        `base64.encode: for parameter s: got ${typeName(s as Value)}, want string`,
      );
    }
    return base64Of(Buffer.from(s, 'utf8'), url);
  });

  const decode = builtin('decode', (_t, args, kwargs) => {
    const [s, safe] = unpackArgs('base64.decode', args, kwargs, ['s', 'url_safe?']);
    const url = safe === undefined ? false : wantBool('base64.decode', 'url_safe', safe);
    if (s instanceof Secret) throw s.refuse('base64.decode');
    if (typeof s !== 'string') {
      throw new StarlarkError(
        `base64.decode: for parameter s: got ${typeName(s as Value)}, want string`,
      );
    }
    const padded = s.endsWith('=');
    if (!(url ? urlSafe : standard).test(s) || (padded ? s.length % 4 !== 0 : s.length % 4 === 1)) {
      throw new StarlarkError(
        `base64.decode: not ${url ? 'URL-safe ' : ''}base64 text${url ? '' : ' (for - and _, pass url_safe = True)'}`,
      );
    }
    const bytes = Buffer.from(s, url ? 'base64url' : 'base64');
    try {
      return fatalUtf8.decode(bytes);
    } catch {
      throw new StarlarkError('base64.decode: the decoded bytes are not UTF-8 text');
    }
  });

  return {
    hmac: defineModule('hmac', { sha256: digest('sha256'), sha1: digest('sha1') }),
    base64: defineModule('base64', { encode, decode }),
  };
}
