import { Mutex } from 'redis-semaphore';
import {
  decodeScript,
  decodeVersion,
  encodeScript,
  type ExecutionEntry,
  type ScriptRecord,
  type ScriptStatus,
  type VersionEntry,
  type VersionRecord,
} from '../contracts/script-record.js';
import { keys } from './keys.js';
import { callLua } from './lua-commands.js';
import type { Redis } from './redis.js';

/** Runs kept in `execution_history` per script. */
export const executionHistoryLimit = 100;

export type ScriptCounts = { total: number } & Record<ScriptStatus, number>;

/**
 * Scripts in Redis: the current record, its versions (newest first) and its run history. The
 * script service decides what a change does (its rules run inside `withLock`); this repository
 * makes each change atomic: every change of one script runs under that script's mutex and writes
 * all its keys in one MULTI/EXEC, so a reader never sees a new hash without its version or status.
 */
export function createScriptRepository(redis: Redis) {
  async function get(name: string): Promise<ScriptRecord | null> {
    return decodeScript(await redis.hgetall(keys.script(name)));
  }

  async function version(name: string, commitId: string): Promise<VersionRecord | null> {
    return decodeVersion(await redis.hgetall(keys.scriptVersion(name, commitId)));
  }

  async function names(): Promise<string[]> {
    return (await redis.smembers(keys.scriptIndex())).sort();
  }

  return {
    get,
    version,
    names,

    async list(): Promise<ScriptRecord[]> {
      const records = await Promise.all((await names()).map((n) => get(n)));
      return records.filter((r): r is ScriptRecord => r !== null);
    },

    async exists(name: string): Promise<boolean> {
      return (await redis.exists(keys.script(name))) === 1;
    },

    async versionExists(name: string, commitId: string): Promise<boolean> {
      return (await redis.exists(keys.scriptVersion(name, commitId))) === 1;
    },

    /** Runs `fn` holding the script's mutex, shared by every process. */
    async withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
      const mutex = new Mutex(redis, keys.scriptLock(name), {
        lockTimeout: 15_000,
        acquireTimeout: 15_000,
        retryInterval: 5,
      });
      await mutex.acquire();
      try {
        return await fn();
      } finally {
        await mutex.release();
      }
    },

    /** Writes the record whole (fields may disappear) plus an optional new version, atomically. */
    async commit(record: ScriptRecord, newVersion?: VersionRecord): Promise<void> {
      const tx = redis
        .multi()
        .del(keys.script(record.name))
        .hset(keys.script(record.name), encodeScript(record))
        .sadd(keys.scriptIndex(), record.name);
      if (newVersion) {
        tx.hset(keys.scriptVersion(record.name, newVersion.commit), { ...newVersion });
        tx.lpush(keys.scriptVersions(record.name), newVersion.commit);
      }
      const results = await tx.exec();
      const failed = results?.find(([err]) => err);
      if (!results || failed)
        throw new Error(`script ${record.name}: write failed: ${failed?.[0]}`);
    },

    /** Deletes the record, every version and the run history (callers hold the lock). */
    async remove(name: string): Promise<void> {
      const commits = await redis.lrange(keys.scriptVersions(name), 0, -1);
      const tx = redis
        .multi()
        .srem(keys.scriptIndex(), name)
        .del(keys.script(name), keys.scriptVersions(name), keys.scriptHistory(name))
        .hdel(keys.scriptToolWrites(), name);
      for (const c of commits) tx.del(keys.scriptVersion(name, c));
      await tx.exec();
    },

    /** Records the hash of the text the tool server is writing to the script's file. */
    async noteToolWrite(name: string, hash: string): Promise<void> {
      await redis.hset(keys.scriptToolWrites(), name, hash);
    },

    /** For each name, the hash the tool server last wrote to its file, or null. */
    async toolWrites(names: readonly string[]): Promise<Array<string | null>> {
      if (names.length === 0) return [];
      return redis.hmget(keys.scriptToolWrites(), ...names);
    },

    /** Newest first. */
    async versions(name: string): Promise<VersionEntry[]> {
      const commits = await redis.lrange(keys.scriptVersions(name), 0, -1);
      const found = await Promise.all(commits.map((c) => version(name, c)));
      return found
        .filter((v): v is VersionRecord => v !== null)
        .map(({ commit: c, message, author, timestamp }) => ({
          commit: c,
          message,
          author,
          timestamp,
        }));
    },

    async recordRun(name: string, entry: ExecutionEntry): Promise<void> {
      await callLua(
        redis,
        'scriptAppendRun',
        keys.script(name),
        keys.scriptHistory(name),
        JSON.stringify(entry),
        executionHistoryLimit,
      );
    },

    /** Newest first. */
    async executionHistory(name: string): Promise<ExecutionEntry[]> {
      const raw = await redis.lrange(keys.scriptHistory(name), 0, executionHistoryLimit - 1);
      return raw.map((line) => JSON.parse(line) as ExecutionEntry);
    },

    /** Scripts by status, for `/metrics`: one pipeline of HGETs, not a decode of every record. */
    async counts(): Promise<ScriptCounts> {
      const all = await redis.smembers(keys.scriptIndex());
      const counts = { total: all.length, approved: 0, pending: 0, rejected: 0 };
      if (all.length === 0) return counts;
      const pipeline = redis.pipeline();
      for (const name of all) pipeline.hget(keys.script(name), 'status');
      for (const [, status] of (await pipeline.exec()) ?? []) {
        if (status === 'approved' || status === 'pending' || status === 'rejected')
          counts[status]++;
      }
      return counts;
    },
  };
}

export type ScriptRepository = ReturnType<typeof createScriptRepository>;
