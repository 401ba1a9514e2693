import { BadRequestError, ConflictError } from '../errors/request-errors.js';
import type { Logger } from '../log/logger.js';
import { keys } from '../store/keys.js';
import type { Redis } from '../store/redis.js';
import { keyFingerprint, type SecretCrypto } from './crypto.js';
import { isSecretName, secretValueSchema, shortValueWarning } from './names.js';
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

export interface SecretStore {
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

export interface SecretStoreDeps {
  /** A store connection (key prefix applied by ioredis). */
  redis: Redis;
  crypto: SecretCrypto;
  log?: Logger;
  now?: () => Date;
  /** Deployment prefix for the pub/sub channel; defaults to the connection's key prefix. */
  prefix?: string;
}

/** Concurrent writers retry their transaction this many times before giving up. */
const MAX_ATTEMPTS = 20;

/**
 * Layout: `secret:<name>` holds the ciphertext (the name is its associated data),
 * `secrets:index` maps name → last update, `secrets:redaction` holds every name and value as one
 * ciphertext for the redactors, `secrets:redaction:version` counts changes. A write changes all
 * of them in one MULTI, guarded by WATCH on the version, then publishes the change.
 */
export function createSecretStore(deps: SecretStoreDeps): SecretStore {
  const { redis, crypto, log } = deps;
  const now = deps.now ?? (() => new Date());
  const prefix = deps.prefix ?? redis.options.keyPrefix ?? '';

  function checkName(name: string): void {
    if (!isSecretName(name)) {
      throw new BadRequestError(
        'invalid secret name: a letter or _ followed by up to 127 letters, digits or _',
      );
    }
  }

  async function list(declaredNames: readonly string[]): Promise<SecretInfo[]> {
    const index = await redis.hgetall(keys.secretIndex());
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
    await transact(redis, (entries) => {
      const next = entries.filter((e) => e.name !== name).concat({ name, value });
      return (multi) =>
        multi
          .set(keys.secret(name), crypto.encryptSecret(name, value))
          .hset(keys.secretIndex(), name, updated)
          .set(keys.redactionSet(), sealRedactionSet(next, crypto));
    });
    const warning = shortValueWarning(value);
    log?.info({ secret: name, short: warning !== undefined }, 'secret set');
    return warning ? { name, set: true, warning } : { name, set: true };
  }

  async function remove(name: string): Promise<boolean> {
    if (!isSecretName(name)) return false;
    const removed = await transact(redis, (entries) => {
      if (!entries.some((e) => e.name === name)) return null;
      const next = entries.filter((e) => e.name !== name);
      return (multi) =>
        multi
          .del(keys.secret(name))
          .hdel(keys.secretIndex(), name)
          .set(keys.redactionSet(), sealRedactionSet(next, crypto));
    });
    if (removed) log?.info({ secret: name }, 'secret deleted');
    return removed;
  }

  async function get(name: string): Promise<string | null> {
    if (!isSecretName(name)) return null;
    const blob = await redis.get(keys.secret(name));
    return blob === null ? null : crypto.decryptSecret(name, blob);
  }

  async function names(): Promise<string[]> {
    return (await redis.hkeys(keys.secretIndex())).sort(compareNames);
  }

  async function counts(declaredNames: readonly string[]): Promise<SecretCounts> {
    const stored = await redis.hkeys(keys.secretIndex());
    const all = new Set([...stored, ...declaredNames]);
    return { total: all.size, configured: stored.length };
  }

  /**
   * Runs one write: `plan` sees every current entry (decrypted), read on a private connection
   * holding a WATCH on the version counter, and returns the writes to queue, or null for
   * "nothing to do".
   * Returns whether anything was written.
   */
  async function transact(
    base: Redis,
    plan: (entries: SecretEntry[]) => ((multi: Multi) => Multi) | null,
  ): Promise<boolean> {
    // WATCH is per connection; the shared one is auto-pipelined and used by other callers.
    const conn = base.duplicate();
    try {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        await conn.watch(keys.redactionVersion(), keys.secretsKeyCheck());
        const check = await conn.get(keys.secretsKeyCheck());
        if (check !== null && check !== crypto.fingerprint) {
          await conn.unwatch();
          // Writing now would store a value under a key nobody else can read.
          throw new SecretsKeyError(
            'the secrets key was rotated since this process started; restart it',
          );
        }
        const entries = await readEntries(conn, crypto);
        const writes = plan(entries);
        if (writes === null) {
          await conn.unwatch();
          return false;
        }
        const multi = writes(conn.multi()).incr(keys.redactionVersion());
        multi.publish(keys.redactionChannel(prefix), 'changed');
        const result = await multi.exec();
        if (result === null) continue;
        const failed = result.find(([err]) => err !== null);
        if (failed) throw failed[0] as Error;
        return true;
      }
      throw new ConflictError('secrets are being changed concurrently; try again');
    } finally {
      conn.disconnect();
    }
  }

  return { list, set, delete: remove, get, names, counts };
}

type Multi = ReturnType<Redis['multi']>;

/** Every stored secret, decrypted; throws (naming the secret, never its value) if one fails. */
export async function readEntries(redis: Redis, crypto: SecretCrypto): Promise<SecretEntry[]> {
  const names = await redis.hkeys(keys.secretIndex());
  if (names.length === 0) return [];
  const blobs = await redis.mget(...names.map((n) => keys.secret(n)));
  const entries: SecretEntry[] = [];
  names.forEach((name, i) => {
    const blob = blobs[i];
    if (blob !== null && blob !== undefined)
      entries.push({ name, value: crypto.decryptSecret(name, blob) });
  });
  return entries;
}

/**
 * Re-encrypts every secret and the redaction set with `next`, and records its check value, in one
 * MULTI guarded by WATCH: either all of it moves to the new key or none does.
 */
export async function reencryptAll(
  base: Redis,
  current: SecretCrypto,
  next: SecretCrypto,
  nextKey: Buffer,
  prefix = base.options.keyPrefix ?? '',
): Promise<number> {
  const conn = base.duplicate();
  try {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      await conn.watch(keys.redactionVersion(), keys.secretIndex(), keys.secretsKeyCheck());
      const check = await conn.get(keys.secretsKeyCheck());
      if (check !== null && check !== current.fingerprint) {
        await conn.unwatch();
        throw new SecretsKeyError('the stored secrets do not use the current key');
      }
      const entries = await readEntries(conn, current);
      const multi = conn.multi();
      for (const { name, value } of entries)
        multi.set(keys.secret(name), next.encryptSecret(name, value));
      multi
        .set(keys.redactionSet(), sealRedactionSet(entries, next))
        .set(keys.secretsKeyCheck(), keyFingerprint(nextKey))
        .incr(keys.redactionVersion())
        .publish(keys.redactionChannel(prefix), 'changed');
      const result = await multi.exec();
      if (result === null) continue;
      const failed = result.find(([err]) => err !== null);
      if (failed) throw failed[0] as Error;
      return entries.length;
    }
    throw new ConflictError('secrets are being changed concurrently; try again');
  } finally {
    conn.disconnect();
  }
}
