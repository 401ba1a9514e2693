import { StoreVersionError } from '../errors/store-errors.js';
import type { Logger } from '../log/logger.js';
import type { MetaRepository } from './meta-repository.js';

/**
 * Moving stored data forward (DESIGN "Backup, restore and upgrades"). The data under the prefix
 * carries a schema version; data without one was written by release 1. At start every role runs
 * the steps newer than the stored version, in order, under one cluster-wide lock, recording the
 * version after each, so a crash part-way resumes at the step that did not finish. Each step is
 * idempotent: run twice, it changes nothing the second time. A Steward older than the data
 * refuses to start rather than read what it does not understand.
 */
export interface Migration {
  /** The schema version this step produces: the one before it plus one. */
  to: number;
  description: string;
  run(): Promise<void>;
}

/** The schema version data written by this code has: the last step's, or 1 with none. */
export function schemaVersionOf(migrations: readonly Migration[]): number {
  return migrations.reduce((v, m) => Math.max(v, m.to), 1);
}

export interface MigrateOptions {
  /** This Steward's release, recorded beside the version for the messages of older ones. */
  release: string;
  log: Logger;
}

/** Runs what is due; returns the version found and the version now stored. */
export async function migrateStore(
  meta: Pick<MetaRepository, 'schemaVersion' | 'setSchemaVersion' | 'withMigrationLock'>,
  migrations: readonly Migration[],
  { release, log }: MigrateOptions,
): Promise<{ from: number; to: number }> {
  const steps = [...migrations].sort((a, b) => a.to - b.to);
  steps.forEach((step, i) => {
    if (step.to !== i + 2) throw new Error(`migration steps must be 2, 3, …: found ${step.to}`);
  });
  const current = schemaVersionOf(steps);
  const check = (found: { version: number | null; writtenBy: string | null }) => {
    const from = found.version ?? 1;
    if (from > current) throw new StoreVersionError(from, current, found.writtenBy ?? undefined);
    return from;
  };
  // Most starts find the data current: no lock for them.
  const seen = await meta.schemaVersion();
  if (seen.version !== null && check(seen) === current) return { from: current, to: current };
  return meta.withMigrationLock(async () => {
    const from = check(await meta.schemaVersion());
    for (const step of steps) {
      if (step.to <= from) continue;
      log.info(
        { from: step.to - 1, to: step.to, migration: step.description },
        'migrating stored data',
      );
      await step.run();
      await meta.setSchemaVersion(step.to, release);
    }
    if (from === current) await meta.setSchemaVersion(current, release);
    return { from, to: current };
  });
}
