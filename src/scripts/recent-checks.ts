import type { ScriptRecord } from '../contracts/script-record.js';

/** What a passed check read: the record, and its file's hash when the file was looked at. */
export interface RecentCheck {
  record: ScriptRecord;
  /** `undefined` when the check did not read the file (an allowlisted name). */
  fileHash: string | null | undefined;
}

export interface RecentChecks {
  /** Files a check that passed (`script-runner.ts`), made just now. */
  note(name: string, check: RecentCheck): void;
  /**
   * The last check of `name` made in this process less than `maxAgeMs` ago, when it read the
   * record at `hash` (and the file, if `needFile`); else undefined, and the worker reads both.
   */
  fresh(name: string, hash: string, needFile: boolean): RecentCheck | undefined;
  /** Drops what was noted of `name` (this process changed or removed it). */
  forget(name: string): void;
}

/** Scripts remembered at most: one entry per name, the oldest dropped first. */
const maxEntries = 1024;

/**
 * Checks this process passed in the last moment, for its own script worker. In `steward start`
 * a run is enqueued by the API and picked up by the worker of the same process well under a
 * millisecond later; reading the record and stat'ing the file again would cost the run a Redis
 * round trip (a tenth of its latency at concurrency 1) to learn what the check has just read. The
 * worker's re-check exists for runs that waited: a job older than `maxAgeMs`, or one enqueued by
 * another process, is read again. A change made through this process forgets its name at once;
 * one made elsewhere is seen by runs checked after it, or by the worker once the note is stale,
 * as if the run had been picked up that much earlier.
 */
export function createRecentChecks(maxAgeMs = 100, now: () => number = Date.now): RecentChecks {
  const checks = new Map<string, RecentCheck & { at: number }>();
  return {
    note(name, check) {
      // Re-inserted, so that the map's order stays the order of the checks.
      checks.delete(name);
      checks.set(name, { ...check, at: now() });
      if (checks.size > maxEntries) {
        const oldest = checks.keys().next().value;
        if (oldest !== undefined) checks.delete(oldest);
      }
    },
    fresh(name, hash, needFile) {
      const check = checks.get(name);
      if (check === undefined) return undefined;
      if (now() - check.at >= maxAgeMs) {
        checks.delete(name);
        return undefined;
      }
      if (check.record.hash !== hash || (needFile && check.fileHash === undefined))
        return undefined;
      return check;
    },
    forget(name) {
      checks.delete(name);
    },
  };
}
