import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { endLeftoverEngines, enginePidFile, pidDir } from '../../src/engine/engine-pid-files.js';
import { identify, isRunning, leadsItsGroup } from '../../src/engine/process-identity.js';

const log = pino({ level: 'silent' });

describe('engine pid files', () => {
  const children: ChildProcess[] = [];
  let dir = '';
  afterEach(() => {
    for (const c of children.splice(0)) {
      try {
        process.kill(-(c.pid as number), 'SIGKILL');
      } catch {}
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A process leading its own group, as a supervised engine does. */
  async function groupLeader(): Promise<ChildProcess> {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      detached: true,
      stdio: 'ignore',
    });
    children.push(child);
    for (let i = 0; i < 100 && !identify(child.pid as number); i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    return child;
  }

  /** An owner that has exited: its pid and a start time no live process has. */
  const goneOwner = { pid: 2 ** 22 - 3, start: '1' };

  it('names processes by pid and start time, so a reused pid is someone else', async () => {
    const child = await groupLeader();
    const me = identify(child.pid as number);
    expect(me).not.toBeNull();
    expect(isRunning(me!)).toBe(true);
    expect(leadsItsGroup(me!)).toBe(true);
    expect(isRunning({ pid: me!.pid, start: `${Number(me!.start) + 1}` })).toBe(false);
    // The test process runs in the group of its runner, not one of its own.
    expect(leadsItsGroup(identify(process.pid)!)).toBe(false);
  });

  it('ends an engine whose owner is gone, with its group, and removes the file', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'steward-pidfiles-'));
    const engine = await groupLeader();
    const file = enginePidFile(dir);
    file.write({ owner: goneOwner, reaper: null, engine: identify(engine.pid as number)! });
    const exited = new Promise((r) => engine.once('exit', r));
    expect(await endLeftoverEngines(dir, 2000, log)).toBe(1);
    await exited;
    expect(engine.signalCode).toBe('SIGTERM');
    expect(existsSync(file.file)).toBe(false);
  });

  it('SIGKILLs an engine that ignores SIGTERM after the grace', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'steward-pidfiles-'));
    const stubborn = spawn(
      process.execPath,
      ['-e', "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000)"],
      { detached: true, stdio: ['ignore', 'pipe', 'ignore'] },
    );
    children.push(stubborn);
    // Only once it ignores SIGTERM (a loaded machine takes a while to start node).
    await new Promise((r) => stubborn.stdout?.once('data', r));
    enginePidFile(dir).write({
      owner: goneOwner,
      reaper: null,
      engine: identify(stubborn.pid as number)!,
    });
    const exited = new Promise((r) => stubborn.once('exit', r));
    await endLeftoverEngines(dir, 300, log);
    await exited;
    expect(stubborn.signalCode).toBe('SIGKILL');
  });

  it('leaves the engine of a live owner, a process whose start time differs, and one not leading its group', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'steward-pidfiles-'));
    const ownedByLive = await groupLeader();
    const stranger = await groupLeader();
    const notLeader = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      stdio: 'ignore',
    });
    children.push(notLeader);
    await new Promise((r) => setTimeout(r, 300));
    // Another Steward still running on the same data directory.
    enginePidFile(dir).write({
      owner: identify(process.pid)!,
      reaper: null,
      engine: identify(ownedByLive.pid as number)!,
    });
    // A forged or stale file: the pid is alive but it is not the process that was recorded.
    const forged = identify(stranger.pid as number)!;
    enginePidFile(dir).write({
      owner: goneOwner,
      reaper: null,
      engine: { pid: forged.pid, start: `${Number(forged.start) - 1}` },
    });
    // A process in the test's own group: a group signal would hit the test runner.
    enginePidFile(dir).write({
      owner: goneOwner,
      reaper: null,
      engine: identify(notLeader.pid as number)!,
    });
    // Garbage is removed, not acted on.
    mkdirSync(pidDir(dir), { recursive: true });
    writeFileSync(path.join(pidDir(dir), 'engine-00.json'), '{"owner": 1}');

    expect(await endLeftoverEngines(dir, 500, log)).toBe(0);
    for (const c of [ownedByLive, stranger, notLeader]) {
      expect(isRunning(identify(c.pid as number)!)).toBe(true);
    }
    // Only the live owner's file stays.
    expect(readdirSync(pidDir(dir))).toHaveLength(1);
  });
});
