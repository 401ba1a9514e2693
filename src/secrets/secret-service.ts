import { BadRequestError, ConflictError } from '../errors/request-errors.js';
import type { Logger } from '../log/logger.js';
import type { SealedSecret, SecretRepository, SecretWrites } from '../store/secret-repository.js';
import { keyFingerprint, type SecretCrypto } from './crypto.js';
import { isSecretName } from '../contracts/secret-names.js';
import { secretValueSchema, shortValueWarning } from './secret-values.js';
import { SecretsKeyError } from '../errors/secrets-errors.js';
import { compareNames, sealRedactionSet } from './redaction-set.js';
import type { SecretEntry } from './redactor.js';

export interface SecretInfo {
  name: string;
  set: boolean;
  /** ISO 8601, null when never set. */
  last_updated: string | null;
}

export interface SetSecretResult {
  name: string;
  set: true;
  /** Present when the value is too short to redact reliably; the value is stored anyway. */
  warning?: string;
}

export interface SecretCounts {
  /** Names known: set, or declared by a script's `@secrets`. */
  total: number;
  /** Names with a stored value. */
  configured: number;
}

export interface SecretService {
  /** Stored and declared names, sorted, without values. */
  list(declaredNames: readonly string[]): Promise<SecretInfo[]>;
  set(name: string, value: string): Promise<SetSecretResult>;
  /** False when no value was stored under `name`. */
  delete(name: string): Promise<boolean>;
  /** The plaintext, for the script runtime only; null when not set. */
  get(name: string): Promise<string | null>;
  /** Names with a stored value, sorted. */
  names(): Promise<string[]>;
  counts(declaredNames: readonly string[]): Promise<SecretCounts>;
}

export interface SecretServiceDeps {
  secrets: SecretRepository;
  crypto: SecretCrypto;
  log?: Logger;
  now?: () => Date;
}

/**
 * Secret values, encrypted before they reach the repository (each ciphertext bound to its name),
 * and the sealed redaction set rewritten with every change, in the same transaction.
 */
export function createSecretService(deps: SecretServiceDeps): SecretService {
  const { secrets, crypto, log } = deps;
  const now = deps.now ?? (() => new Date());

  function checkName(name: string): void {
    if (!isSecretName(name)) {
      throw new BadRequestError(
        'invalid secret name: a letter or _ followed by up to 127 letters, digits or _',
      );
    }
  }

  async function list(declaredNames: readonly string[]): Promise<SecretInfo[]> {
    const index = await secrets.index();
    const infos = new Map<string, SecretInfo>();
    for (const name of declaredNames) infos.set(name, { name, set: false, last_updated: null });
    for (const [name, updated] of Object.entries(index)) {
      infos.set(name, { name, set: true, last_updated: updated });
    }
    return [...infos.values()].sort((a, b) => compareNames(a.name, b.name));
  }

  async function set(name: string, value: string): Promise<SetSecretResult> {
    checkName(name);
    const checked = secretValueSchema.safeParse(value);
    if (!checked.success) {
      throw new BadRequestError(checked.error.issues[0]?.message ?? 'invalid value');
    }
    const updated = now().toISOString();
    await transact((entries) => {
      const next = entries.filter((e) => e.name !== name).concat({ name, value });
      return {
        put: [{ name, blob: crypto.encryptSecret(name, value), updated }],
        redactionSet: sealRedactionSet(next, crypto),
      };
    });
    const warning = shortValueWarning(value);
    log?.info({ secret: name, short: warning !== undefined }, 'secret set');
    return warning ? { name, set: true, warning } : { name, set: true };
  }

  async function remove(name: string): Promise<boolean> {
    if (!isSecretName(name)) return false;
    const removed = await transact((entries) => {
      if (!entries.some((e) => e.name === name)) return null;
      const next = entries.filter((e) => e.name !== name);
      return { remove: [name], redactionSet: sealRedactionSet(next, crypto) };
    });
    if (removed) log?.info({ secret: name }, 'secret deleted');
    return removed;
  }

  async function get(name: string): Promise<string | null> {
    if (!isSecretName(name)) return null;
    const blob = await secrets.blob(name);
    return blob === null ? null : crypto.decryptSecret(name, blob);
  }

  async function names(): Promise<string[]> {
    return (await secrets.names()).sort(compareNames);
  }

  async function counts(declaredNames: readonly string[]): Promise<SecretCounts> {
    const stored = await secrets.names();
    const all = new Set([...stored, ...declaredNames]);
    return { total: all.size, configured: stored.length };
  }

  /**
   * Runs one write: `plan` sees every current entry (decrypted), read inside the repository's
   * WATCH on the version counter, and returns the writes, or null for "nothing to do".
   * Returns whether anything was written.
   */
  async function transact(plan: (entries: SecretEntry[]) => SecretWrites | null): Promise<boolean> {
    const outcome = await secrets.transact({
      checkKey(stored) {
        if (stored !== null && stored !== crypto.fingerprint) {
          // Writing now would store a value under a key nobody else can read.
          throw new SecretsKeyError(
            'the secrets key was rotated since this process started; restart it',
          );
        }
      },
      plan: (sealed) => plan(openAll(sealed, crypto)),
    });
    if (outcome === 'contended') throw contended();
    return outcome === 'written';
  }

  return { list, set, delete: remove, get, names, counts };
}

const contended = () => new ConflictError('secrets are being changed concurrently; try again');

/** Every stored secret, decrypted; throws (naming the secret, never its value) if one fails. */
function openAll(sealed: readonly SealedSecret[], crypto: SecretCrypto): SecretEntry[] {
  return sealed.map(({ name, blob }) => ({ name, value: crypto.decryptSecret(name, blob) }));
}

/**
 * Re-encrypts every secret and the redaction set with `next`, and records its check value, in one
 * MULTI guarded by WATCH: either all of it moves to the new key or none does.
 */
export async function reencryptAll(
  secrets: SecretRepository,
  current: SecretCrypto,
  next: SecretCrypto,
  nextKey: Buffer,
): Promise<number> {
  let count = 0;
  const outcome = await secrets.transact({
    watchIndex: true,
    checkKey(stored) {
      if (stored !== null && stored !== current.fingerprint) {
        throw new SecretsKeyError('the stored secrets do not use the current key');
      }
    },
    plan(sealed) {
      const entries = openAll(sealed, current);
      count = entries.length;
      return {
        put: entries.map(({ name, value }) => ({ name, blob: next.encryptSecret(name, value) })),
        redactionSet: sealRedactionSet(entries, next),
        keyCheck: keyFingerprint(nextKey),
      };
    },
  });
  if (outcome === 'contended') throw contended();
  return count;
}
