import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../log/logger.js';
import { canIdentify, isRunning, leadsItsGroup, type ProcessIdentity } from './process-identity.js';

/**
 * The second line behind the reaper (`engine-reaper.ts`): should Steward and its reaper both be
 * killed outright, the engine outlives them. Each supervised engine therefore has a pid file in
 * `<data>/run/` naming its owner, its reaper and itself, each by pid AND start time; a later
 * start for the same data directory ends every engine whose owner is gone. A file never leads to
 * a signal unless the process it names is still that very process (never a kill by name).
 */
export interface EnginePidRecord {
  owner: ProcessIdentity;
  reaper: ProcessIdentity | null;
  engine: ProcessIdentity;
}

export const pidDir = (dataDir: string) => path.join(dataDir, 'run');

/** A pid file for one engine of this process; `write` replaces it as the engine restarts. */
export function enginePidFile(dataDir: string) {
  const file = path.join(pidDir(dataDir), `engine-${randomBytes(6).toString('hex')}.json`);
  return {
    file,
    write(record: EnginePidRecord): void {
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      writeFileSync(file, `${JSON.stringify(record)}\n`, { mode: 0o600 });
    },
    remove(): void {
      rmSync(file, { force: true });
    },
  };
}

function readRecord(file: string): EnginePidRecord | null {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<EnginePidRecord>;
    const valid = (p: unknown): p is ProcessIdentity =>
      typeof p === 'object' &&
      p !== null &&
      Number.isInteger((p as ProcessIdentity).pid) &&
      (p as ProcessIdentity).pid > 1 &&
      typeof (p as ProcessIdentity).start === 'string';
    if (!valid(parsed.owner) || !valid(parsed.engine)) return null;
    return {
      owner: parsed.owner,
      engine: parsed.engine,
      reaper: valid(parsed.reaper) ? parsed.reaper : null,
    };
  } catch {
    return null;
  }
}

function signalGroup(leader: ProcessIdentity, signal: NodeJS.Signals): void {
  try {
    process.kill(-leader.pid, signal);
  } catch {}
}

/**
 * Ends the engines of `<data>/run/` whose owner no longer runs: SIGTERM to the engine's group,
 * SIGKILL after `graceMs` if it is still there. Files of live owners (another Steward on the same
 * data directory) are left alone; files naming no live engine are removed. Returns the engines
 * ended.
 */
export async function endLeftoverEngines(
  dataDir: string,
  graceMs: number,
  log: Logger,
): Promise<number> {
  const dir = pidDir(dataDir);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /^engine-[0-9a-f]+\.json$/.test(n));
  } catch {
    return 0;
  }
  if (names.length > 0 && !canIdentify()) {
    log.warn({ dir }, 'cannot tell processes apart here (no /proc): engine pid files ignored');
    return 0;
  }
  let ended = 0;
  for (const name of names) {
    const file = path.join(dir, name);
    const record = readRecord(file);
    if (record && isRunning(record.owner)) continue;
    if (record?.reaper && isRunning(record.reaper)) {
      try {
        process.kill(record.reaper.pid, 'SIGKILL');
      } catch {}
    }
    if (record && leadsItsGroup(record.engine)) {
      log.warn(
        { engine_pid: record.engine.pid, owner_pid: record.owner.pid },
        'ending an AI engine left running by an earlier Steward process',
      );
      signalGroup(record.engine, 'SIGTERM');
      const deadline = Date.now() + graceMs;
      while (isRunning(record.engine) && Date.now() < deadline) await sleep(50);
      if (leadsItsGroup(record.engine)) signalGroup(record.engine, 'SIGKILL');
      ended++;
    }
    rmSync(file, { force: true });
  }
  return ended;
}
