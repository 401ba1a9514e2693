import { Mutex } from 'redis-semaphore';
import { AppError, conflict } from '../errors/catalogue.js';
import type { Redis } from '../store/redis.js';
import { keys } from '../store/keys.js';
import { hashSource, newCommitId } from './hashing.js';
import { parseMetadata } from './metadata.js';
import {
  decodeScript,
  decodeVersion,
  encodeScript,
  type ChangeAuthor,
  type ExecutionEntry,
  type ScriptRecord,
  type VersionEntry,
  type VersionRecord,
} from './script-schema.js';

/** Runs kept in `execution_history` per script. */
export const executionHistoryLimit = 100;

// Appends only while the script exists, so a run finishing after a delete leaves no orphan key.
const appendRunLua = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('LPUSH', KEYS[2], ARGV[1])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[2]) - 1)
return 1`;

export interface ScriptStoreDeps {
  redis: Redis;
  /** Clock for timestamps (tests may pin it). */
  now?: () => Date;
}

/**
 * Scripts in Redis: the current record, its versions (newest first) and its run history. Every
 * change of one script runs under that script's mutex and writes all its keys in one MULTI/EXEC,
 * so a reader never sees a new hash without its version or status.
 */
export function createScriptStore({ redis, now = () => new Date() }: ScriptStoreDeps) {
  const stamp = () => now().toISOString();

  async function locked<T>(name: string, fn: () => Promise<T>): Promise<T> {
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
  }

  async function get(name: string): Promise<ScriptRecord | null> {
    return decodeScript(await redis.hgetall(keys.script(name)));
  }

  async function mustGet(name: string): Promise<ScriptRecord> {
    const record = await get(name);
    if (!record) throw new AppError('script_not_found', `script ${name} not found`);
    return record;
  }

  /** Writes the record whole (fields may disappear) plus an optional new version, atomically. */
  async function commit(record: ScriptRecord, version?: VersionRecord): Promise<void> {
    const tx = redis
      .multi()
      .del(keys.script(record.name))
      .hset(keys.script(record.name), encodeScript(record))
      .sadd(keys.scriptIndex(), record.name);
    if (version) {
      tx.hset(keys.scriptVersion(record.name, version.commit), { ...version });
      tx.lpush(keys.scriptVersions(record.name), version.commit);
    }
    const results = await tx.exec();
    const failed = results?.find(([err]) => err);
    if (!results || failed) throw new Error(`script ${record.name}: write failed: ${failed?.[0]}`);
  }

  async function newVersion(name: string, source: string, who: ChangeAuthor) {
    let commitId = newCommitId();
    // 160 random bits never collide in practice; the check makes uniqueness a fact, not a hope.
    while ((await redis.exists(keys.scriptVersion(name, commitId))) === 1) commitId = newCommitId();
    const version: VersionRecord = {
      commit: commitId,
      message: who.message,
      author: who.author,
      timestamp: stamp(),
      source,
      hash: hashSource(source),
    };
    return version;
  }

  /** The current record with a new source: new hash, new head, back to pending. */
  function changed(current: ScriptRecord, version: VersionRecord): ScriptRecord {
    const next: ScriptRecord = {
      ...current,
      source: version.source,
      hash: version.hash,
      status: 'pending',
      metadata: parseMetadata(version.source),
      modified_at: version.timestamp,
      head: version.commit,
    };
    delete next.approved_at;
    delete next.approved_by;
    delete next.rejected_at;
    delete next.rejected_by;
    delete next.reason;
    return next;
  }

  async function version(name: string, commitId: string): Promise<VersionRecord | null> {
    return decodeVersion(await redis.hgetall(keys.scriptVersion(name, commitId)));
  }

  return {
    get,
    mustGet,
    version,

    async names(): Promise<string[]> {
      return (await redis.smembers(keys.scriptIndex())).sort();
    },

    async list(): Promise<ScriptRecord[]> {
      const names = (await redis.smembers(keys.scriptIndex())).sort();
      const records = await Promise.all(names.map((n) => get(n)));
      return records.filter((r): r is ScriptRecord => r !== null);
    },

    async create(name: string, source: string, who: ChangeAuthor): Promise<ScriptRecord> {
      return locked(name, async () => {
        if ((await redis.exists(keys.script(name))) === 1) {
          throw conflict(`script ${name} already exists`);
        }
        const v = await newVersion(name, source, who);
        const record: ScriptRecord = {
          name,
          source,
          hash: v.hash,
          status: 'pending',
          metadata: parseMetadata(source),
          created_at: v.timestamp,
          modified_at: v.timestamp,
          head: v.commit,
        };
        await commit(record, v);
        return record;
      });
    },

    /** With `onlyIfChanged`, a source equal to the current one adds no version (disk imports). */
    async update(
      name: string,
      source: string,
      who: ChangeAuthor,
      onlyIfChanged = false,
    ): Promise<ScriptRecord> {
      return locked(name, async () => {
        const current = await mustGet(name);
        if (onlyIfChanged && current.hash === hashSource(source)) return current;
        const v = await newVersion(name, source, who);
        const next = changed(current, v);
        await commit(next, v);
        return next;
      });
    },

    /** A new version whose source is that of `commitId`; pending again. */
    async restore(name: string, commitId: string, author: string): Promise<ScriptRecord> {
      return locked(name, async () => {
        const current = await mustGet(name);
        const old = await version(name, commitId);
        if (!old) throw new AppError('not_found', `script ${name} has no version ${commitId}`);
        const v = await newVersion(name, old.source, {
          author,
          message: `restored from ${commitId}`,
        });
        const next = changed(current, v);
        await commit(next, v);
        return next;
      });
    },

    async remove(name: string): Promise<void> {
      await locked(name, async () => {
        await mustGet(name);
        const commits = await redis.lrange(keys.scriptVersions(name), 0, -1);
        const tx = redis
          .multi()
          .srem(keys.scriptIndex(), name)
          .del(keys.script(name), keys.scriptVersions(name), keys.scriptHistory(name));
        for (const c of commits) tx.del(keys.scriptVersion(name, c));
        await tx.exec();
      });
    },

    /** Approves the current hash; `expectedHash` guards against approving a text not reviewed. */
    async approve(name: string, by: string, expectedHash?: string): Promise<ScriptRecord> {
      return locked(name, async () => {
        const current = await mustGet(name);
        if (expectedHash !== undefined && expectedHash !== current.hash) {
          throw new AppError(
            'script_modified',
            `script ${name} changed: its hash is ${current.hash}, not ${expectedHash}`,
          );
        }
        // Approving what is already approved keeps the original approval's time and author.
        if (current.status === 'approved' && current.approved_hash === current.hash) return current;
        const next: ScriptRecord = {
          ...current,
          status: 'approved',
          approved_at: stamp(),
          approved_by: by,
          approved_hash: current.hash,
        };
        delete next.rejected_at;
        delete next.rejected_by;
        delete next.reason;
        await commit(next);
        return next;
      });
    },

    async reject(name: string, by: string, reason: string): Promise<ScriptRecord> {
      return locked(name, async () => {
        const current = await mustGet(name);
        if (current.status === 'rejected') {
          throw conflict(`script ${name} is already rejected`);
        }
        const next: ScriptRecord = {
          ...current,
          status: 'rejected',
          rejected_at: stamp(),
          rejected_by: by,
          reason,
        };
        delete next.approved_at;
        delete next.approved_by;
        delete next.approved_hash;
        await commit(next);
        return next;
      });
    },

    async versions(name: string): Promise<VersionEntry[]> {
      await mustGet(name);
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
      await redis.eval(
        appendRunLua,
        2,
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
  };
}

export type ScriptStore = ReturnType<typeof createScriptStore>;
