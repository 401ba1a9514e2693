import { keys } from './keys.js';
import type { Redis } from './redis.js';

/** One stored secret: its name and its ciphertext (the secrets folder encrypts and decrypts). */
export interface SealedSecret {
  name: string;
  blob: string;
}

/**
 * The writes of one change of the secret set, applied in this order in one MULTI, followed by the
 * version bump and the change notice.
 */
export interface SecretWrites {
  /** Ciphertexts to store; with `updated`, the index records that time for the name. */
  put?: Array<SealedSecret & { updated?: string }>;
  /** Names whose value and index entry go. */
  remove?: string[];
  /** The new sealed redaction set (every name and value). */
  redactionSet: string;
  /** A new check value of the secrets key (a key rotation). */
  keyCheck?: string;
}

export interface SecretTransaction {
  /** Also WATCH the index (a rotation must see every name it re-encrypts). */
  watchIndex?: boolean;
  /** Sees the stored key check value first; throws to refuse the write. */
  checkKey(stored: string | null): void;
  /** Sees every stored ciphertext; returns the writes, or null for "nothing to do". */
  plan(stored: SealedSecret[]): SecretWrites | null;
}

/** `contended`: other writers kept changing the set through every attempt. */
export type TransactionOutcome = 'written' | 'unchanged' | 'contended';

/** Concurrent writers retry their transaction this many times before giving up. */
const MAX_ATTEMPTS = 20;

/**
 * Layout: `secret:<name>` holds the ciphertext (the name is its associated data),
 * `secrets:index` maps name → last update, `secrets:redaction` holds every name and value as one
 * ciphertext for the redactors, `secrets:redaction:version` counts changes, and
 * `secrets:key_check` is the one-way check value of the key they are all encrypted with. A write
 * changes all of them in one MULTI, guarded by WATCH on the version, then publishes the change.
 */
export function createSecretRepository(
  redis: Redis,
  /** Deployment prefix for the pub/sub channel; defaults to the connection's key prefix. */
  prefix = redis.options.keyPrefix ?? '',
) {
  async function transact(tx: SecretTransaction): Promise<TransactionOutcome> {
    // WATCH is per connection; the shared one is auto-pipelined and used by other callers.
    const conn = redis.duplicate();
    try {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        if (tx.watchIndex) {
          await conn.watch(keys.redactionVersion(), keys.secretIndex(), keys.secretsKeyCheck());
        } else {
          await conn.watch(keys.redactionVersion(), keys.secretsKeyCheck());
        }
        try {
          tx.checkKey(await conn.get(keys.secretsKeyCheck()));
        } catch (err) {
          await conn.unwatch();
          throw err;
        }
        const writes = tx.plan(await readAll(conn));
        if (writes === null) {
          await conn.unwatch();
          return 'unchanged';
        }
        const multi = conn.multi();
        for (const { name, blob, updated } of writes.put ?? []) {
          multi.set(keys.secret(name), blob);
          if (updated !== undefined) multi.hset(keys.secretIndex(), name, updated);
        }
        for (const name of writes.remove ?? []) {
          multi.del(keys.secret(name)).hdel(keys.secretIndex(), name);
        }
        multi.set(keys.redactionSet(), writes.redactionSet);
        if (writes.keyCheck !== undefined) multi.set(keys.secretsKeyCheck(), writes.keyCheck);
        multi.incr(keys.redactionVersion()).publish(keys.redactionChannel(prefix), 'changed');
        const result = await multi.exec();
        if (result === null) continue;
        const failed = result.find(([err]) => err !== null);
        if (failed) throw failed[0] as Error;
        return 'written';
      }
      return 'contended';
    } finally {
      conn.disconnect();
    }
  }

  return {
    transact,

    /** Name → last update (ISO 8601) of every stored secret. */
    index: (): Promise<Record<string, string>> => redis.hgetall(keys.secretIndex()),
    /** Names with a stored value, unsorted. */
    names: (): Promise<string[]> => redis.hkeys(keys.secretIndex()),
    count: (): Promise<number> => redis.hlen(keys.secretIndex()),
    blob: (name: string): Promise<string | null> => redis.get(keys.secret(name)),

    /** Whether any secret or redaction set is stored (whatever key it was encrypted with). */
    async hasStored(): Promise<boolean> {
      return (await redis.exists(keys.secretIndex(), keys.redactionSet())) > 0;
    },
    redactionSet: (): Promise<string | null> => redis.get(keys.redactionSet()),

    keyCheck: (): Promise<string | null> => redis.get(keys.secretsKeyCheck()),
    /** Records the key's check value unless one is stored; false when another was first. */
    async recordKeyCheck(fingerprint: string): Promise<boolean> {
      return (await redis.set(keys.secretsKeyCheck(), fingerprint, 'NX')) !== null;
    },
  };
}

/** Every stored ciphertext, read on `conn` (inside the caller's WATCH). */
async function readAll(conn: Redis): Promise<SealedSecret[]> {
  const names = await conn.hkeys(keys.secretIndex());
  if (names.length === 0) return [];
  const blobs = await conn.mget(...names.map((n) => keys.secret(n)));
  const sealed: SealedSecret[] = [];
  names.forEach((name, i) => {
    const blob = blobs[i];
    if (blob !== null && blob !== undefined) sealed.push({ name, blob });
  });
  return sealed;
}

export type SecretRepository = ReturnType<typeof createSecretRepository>;
