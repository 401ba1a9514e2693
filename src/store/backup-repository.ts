import { BackupError } from '../errors/backup-errors.js';
import type { StoredAuditEntry } from './audit-repository.js';
import { dispositionOf, keptSingletons, prefixPattern } from './backup-keys.js';
import { keys } from './keys.js';
import type { Redis } from './redis.js';
import type { KeyRecord } from './backup-records.js';
import { readKeys, writeKey } from './backup-values.js';

/** Where the audit chain stood at the snapshot: its first and last entry ids, head and anchor. */
export interface AuditBounds {
  first: string | null;
  last: string | null;
  /** Entries from first to last. */
  count: number;
  head: string;
  anchor: string;
}

export interface Snapshot {
  /** The snapshot's point, in ms on Redis's clock. */
  at_ms: number;
  /** Every kept key (`backup-keys.ts`) but the audit chain, sorted by key. */
  records: KeyRecord[];
  audit: AuditBounds;
  /** The stored schema version (null: data of release 1, or no data). */
  schema: { version: number | null; written_by: string | null };
  /** Keys under the prefix of no kind Steward knows (another tool's, a newer release's). */
  unknown_keys: number;
  /** `watch`: optimistic, nobody waited; `pause`: writers paused while it read. */
  method: 'watch' | 'pause';
  attempts: number;
}

export interface SnapshotOptions {
  /** Optimistic attempts before writers are paused; default 5. */
  attempts?: number;
  /** Longest pause of writers allowed to the fallback, ms; default 10 s. */
  maxPauseMs?: number;
}

export interface RestorePlan {
  /** Every key under the prefix to delete first (`--force`), relative. */
  replace: string[];
  records: KeyRecord[];
  audit: { entries: StoredAuditEntry[]; head: string; anchor: string };
  meta: { schemaVersion: number; writtenBy: string; approvalKeyCheck: string };
}

const AUDIT_PAGE = 1000;

/**
 * Backups and restores of everything a deployment keeps (DESIGN "Backup, restore and upgrades").
 *
 * A snapshot must be of one point in time without stopping Redis for long. It is optimistic:
 * SCAN the prefix, WATCH every kept key (and every kept singleton, absent ones too, since their
 * creation is a change), read them all in pipelined batches while other clients go on, SCAN again
 * (a kept key that appeared means a change no WATCH saw), then EXEC a transaction that reads the
 * audit chain's bounds, the schema version and Redis's clock. EXEC fails when any watched key was
 * written, deleted or expired after its WATCH, so a snapshot that succeeds holds the values all
 * those keys had at EXEC. The audit chain is not watched (every action appends to it): its
 * bounds are taken in the EXEC and its entries read afterwards by id, which never changes for an
 * entry; a prune meanwhile is noticed (the first entry is gone) and the backup fails rather than
 * miss one. When writes keep winning (a store too large to read between two writes), the last
 * resort pauses writers (`CLIENT PAUSE … WRITE`, Redis 6.2+) for the time of one read, bounded.
 * A Lua script would be atomic too, but it blocks every client, readers included, for the whole
 * read, and builds the whole store as one reply inside Redis; a MULTI of reads per batch is
 * atomic per batch only.
 */
export function createBackupRepository(redis: Redis) {
  const prefix = redis.options.keyPrefix ?? '';
  const relative = (full: string) => full.slice(prefix.length);

  /** Every key under the prefix, by what a backup does with it. */
  async function scan(
    conn: Redis,
  ): Promise<{ kept: string[]; steward: string[]; unknown: number }> {
    const kept: string[] = [];
    const steward: string[] = [];
    let unknown = 0;
    let cursor = '0';
    do {
      const [next, found] = await conn.scan(cursor, 'MATCH', prefixPattern(prefix), 'COUNT', 1000);
      cursor = next;
      for (const full of found) {
        const disposition = dispositionOf(relative(full));
        if (disposition === null) unknown++;
        else steward.push(relative(full));
        if (disposition === 'kept') kept.push(full);
      }
    } while (cursor !== '0');
    return { kept: [...new Set(kept)].sort(), steward: [...new Set(steward)], unknown };
  }

  /** The reads of the transaction that fixes the snapshot's point. */
  function pointReads(conn: Redis) {
    return conn
      .multi()
      .xrange(`${prefix}${keys.auditLog()}`, '-', '+', 'COUNT', 1)
      .xrevrange(`${prefix}${keys.auditLog()}`, '+', '-', 'COUNT', 1)
      .get(`${prefix}${keys.auditHead()}`)
      .get(`${prefix}${keys.auditAnchor()}`)
      .get(`${prefix}${keys.schemaVersion()}`)
      .get(`${prefix}${keys.schemaWrittenBy()}`)
      .time()
      .xlen(`${prefix}${keys.auditLog()}`);
  }

  function pointOf(results: Array<[Error | null, unknown]>) {
    const value = (i: number) => {
      const [err, v] = results[i] ?? [new Error('missing reply'), null];
      if (err) throw err;
      return v;
    };
    const idOf = (reply: unknown) => ((reply as Array<[string]>)[0]?.[0] ?? null) as string | null;
    const version = Number(value(4));
    const [seconds, micros] = value(6) as [string, string];
    return {
      audit: {
        first: idOf(value(0)),
        last: idOf(value(1)),
        count: Number(value(7)),
        head: (value(2) as string | null) ?? '',
        anchor: (value(3) as string | null) ?? '',
      },
      schema: {
        version: Number.isInteger(version) && version > 0 ? version : null,
        written_by: value(5) as string | null,
      },
      at_ms: Number(seconds) * 1000 + Math.floor(Number(micros) / 1000),
    };
  }

  async function optimistic(conn: Redis): Promise<Omit<Snapshot, 'method' | 'attempts'> | null> {
    const listed = await scan(conn);
    const watched = [...listed.kept, ...keptSingletons.map((k) => `${prefix}${k}`)];
    for (let i = 0; i < watched.length; i += 1000) {
      await conn.watch(...watched.slice(i, i + 1000));
    }
    const records = await readKeys(conn, listed.kept, relative);
    const again = await scan(conn);
    const seen = new Set(listed.kept);
    if (again.kept.some((k) => !seen.has(k))) {
      await conn.unwatch();
      return null;
    }
    const results = await pointReads(conn).exec();
    if (!results) return null;
    return { ...pointOf(results), records, unknown_keys: listed.unknown };
  }

  async function paused(
    conn: Redis,
    maxPauseMs: number,
  ): Promise<Omit<Snapshot, 'method' | 'attempts'>> {
    try {
      await conn.call('CLIENT', 'PAUSE', String(maxPauseMs), 'WRITE');
    } catch (err) {
      throw new BackupError(
        'contended',
        `the store kept changing while the backup read it, and Redis would not pause writes for a moment (${(err as Error).message}); run the backup again when Steward is quieter`,
      );
    }
    const started = Date.now();
    try {
      const listed = await scan(conn);
      const records = await readKeys(conn, listed.kept, relative);
      const results = await pointReads(conn).exec();
      if (!results) throw new Error('the snapshot transaction was discarded');
      if (Date.now() - started >= maxPauseMs) {
        throw new BackupError(
          'contended',
          `reading the store took longer than the ${maxPauseMs} ms writers may be paused; run the backup when Steward is quieter`,
        );
      }
      return { ...pointOf(results), records, unknown_keys: listed.unknown };
    } finally {
      await conn.call('CLIENT', 'UNPAUSE').catch(() => {});
    }
  }

  return {
    async snapshot(options: SnapshotOptions = {}): Promise<Snapshot> {
      const attempts = options.attempts ?? 5;
      // WATCH and MULTI hold per connection: one of its own, unprefixed (SCAN returns full names).
      const conn = redis.duplicate({ keyPrefix: '', enableAutoPipelining: false });
      try {
        for (let attempt = 1; attempt <= attempts; attempt++) {
          const taken = await optimistic(conn);
          if (taken) return { ...taken, method: 'watch', attempts: attempt };
          await new Promise((r) => setTimeout(r, Math.random() * 50 * attempt));
        }
        const taken = await paused(conn, options.maxPauseMs ?? 10_000);
        return { ...taken, method: 'pause', attempts: attempts + 1 };
      } finally {
        conn.disconnect();
      }
    },

    /**
     * The audit entries of a snapshot, oldest first, a page at a time. Entries never change and
     * new ones come after `last`; only a prune removes some (the oldest), which is an error here.
     */
    async *auditEntries(bounds: AuditBounds): AsyncGenerator<StoredAuditEntry[]> {
      if (bounds.first === null || bounds.last === null) return;
      let start = bounds.first;
      let first = true;
      for (;;) {
        const reply = (await redis.xrange(
          keys.auditLog(),
          start,
          bounds.last,
          'COUNT',
          AUDIT_PAGE,
        )) as Array<[string, string[]]>;
        if (first && reply[0]?.[0] !== bounds.first) {
          throw new BackupError(
            'contended',
            'the audit log was pruned while the backup read it; run the backup again',
          );
        }
        first = false;
        if (reply.length === 0) return;
        yield reply.map(([id, fields]) => {
          const at = (name: string) => fields[fields.indexOf(name) + 1] ?? '';
          return { id, json: at('e'), hash: at('h') };
        });
        const lastId = reply[reply.length - 1]?.[0] as string;
        if (lastId === bounds.last || reply.length < AUDIT_PAGE) return;
        start = `(${lastId}`;
      }
    },

    /** Steward's keys under the prefix (relative), and the count of keys of no known kind. */
    async stewardKeys(): Promise<{ keys: string[]; unknown: number }> {
      const conn = redis.duplicate({ keyPrefix: '', enableAutoPipelining: false });
      try {
        const { steward, unknown } = await scan(conn);
        return { keys: steward.sort(), unknown };
      } finally {
        conn.disconnect();
      }
    },

    /** Redis's clock, ms. */
    async now(): Promise<number> {
      const [seconds, micros] = await redis.time();
      return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    },

    /**
     * Writes a plan in one MULTI/EXEC: every client sees the store before or after, never
     * between; a failure before EXEC (a lost connection, a command Redis refuses to queue)
     * discards it whole. Every key is deleted before it is written, so no command can meet a
     * key of another type and fail inside EXEC.
     */
    async restore(plan: RestorePlan): Promise<void> {
      const tx = redis.multi();
      for (let i = 0; i < plan.replace.length; i += 1000)
        tx.del(...plan.replace.slice(i, i + 1000));
      for (const record of plan.records) writeKey(tx, record);
      tx.del(keys.auditLog(), keys.auditHead(), keys.auditAnchor());
      for (const e of plan.audit.entries) tx.xadd(keys.auditLog(), e.id, 'e', e.json, 'h', e.hash);
      if (plan.audit.head) tx.set(keys.auditHead(), plan.audit.head);
      if (plan.audit.anchor) tx.set(keys.auditAnchor(), plan.audit.anchor);
      tx.set(keys.schemaVersion(), String(plan.meta.schemaVersion));
      tx.set(keys.schemaWrittenBy(), plan.meta.writtenBy);
      tx.set(keys.approvalKeyCheck(), plan.meta.approvalKeyCheck);
      let results: Array<[Error | null, unknown]> | null;
      try {
        results = await tx.exec();
      } catch (err) {
        throw new BackupError(
          'write',
          `Redis refused the restore; nothing was written: ${(err as Error).message}`,
        );
      }
      const failed = results?.find(([err]) => err);
      if (!results || failed) {
        throw new BackupError(
          'write',
          `Redis failed part of the restore (${failed?.[0]?.message ?? 'transaction discarded'}); restore again with --force`,
        );
      }
    },
  };
}

export type BackupRepository = ReturnType<typeof createBackupRepository>;
