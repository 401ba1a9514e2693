import { keys } from './keys.js';
import type { Redis } from './redis.js';
import { withLock } from './with-lock.js';

/**
 * What the store says about itself: its schema version (`migrations.ts` moves it forward) and the
 * fingerprint of the approval key its approvals were signed with. Neither is authority: a Redis
 * writer may change both, so they only drive messages and the order of migrations, never whether
 * an approval holds.
 */
export function createMetaRepository(redis: Redis) {
  return {
    /** Null when the data carries no version (written by release 1, or an empty store). */
    async schemaVersion(): Promise<{ version: number | null; writtenBy: string | null }> {
      const [version, writtenBy] = await redis.mget(keys.schemaVersion(), keys.schemaWrittenBy());
      const parsed = version === null || version === undefined ? null : Number(version);
      return {
        version: parsed !== null && Number.isInteger(parsed) && parsed > 0 ? parsed : null,
        writtenBy: writtenBy ?? null,
      };
    },

    async setSchemaVersion(version: number, writtenBy: string): Promise<void> {
      await redis
        .multi()
        .set(keys.schemaVersion(), String(version))
        .set(keys.schemaWrittenBy(), writtenBy)
        .exec();
    },

    /** Runs `fn` as the only migrator cluster-wide (replicas start together). */
    withMigrationLock<T>(fn: () => Promise<T>): Promise<T> {
      // Long enough for a migration of a large store; redis-semaphore refreshes it while held.
      return withLock(redis, keys.migrationLock(), fn, {
        lockTimeout: 60_000,
        acquireTimeout: 120_000,
      });
    },

    approvalKeyCheck: (): Promise<string | null> => redis.get(keys.approvalKeyCheck()),

    async recordApprovalKeyCheck(fingerprint: string): Promise<void> {
      await redis.set(keys.approvalKeyCheck(), fingerprint);
    },
  };
}

export type MetaRepository = ReturnType<typeof createMetaRepository>;
