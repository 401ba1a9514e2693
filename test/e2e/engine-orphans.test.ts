import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/store/embedded-redis.js';
import { cliPath } from '../support/processes.js';
import { dropPrefix, testRedisUrl, uniquePrefix } from '../support/redis.js';

/**
 * An engine that answers the supervisor's health check and starts a helper into its process
 * group (as OpenCode starts `steward mcp`): both carry this test's folder in their command line,
 * which is how the test counts them (it only reads /proc; it never kills by name).
 */
const fakeEngine = `
import http from 'node:http';
import { spawn } from 'node:child_process';
const port = Number(process.argv[process.argv.indexOf('--port') + 1]);
spawn(process.execPath, [process.argv[1].replace('engine.mjs', 'helper.mjs')], { stdio: 'ignore' });
http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': req.url === '/event' ? 'text/event-stream' : 'application/json' });
  if (req.url !== '/event') res.end('{"healthy":true,"version":"fake"}');
}).listen(port, '127.0.0.1');
`;

interface Proc {
  pid: number;
  ppid: number;
  args: string;
}

function processes(): Proc[] {
  const found: Proc[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue;
      found.push({ pid: Number(entry), ppid: Number(fields[1]), args });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** The processes between `ancestor` and `p` (its parent first), or null if not a descendant. */
function between(all: Proc[], ancestor: number | undefined, p: Proc): Proc[] | null {
  const chain: Proc[] = [];
  for (let at = all.find((q) => q.pid === p.ppid); at; at = all.find((q) => q.pid === at?.ppid)) {
    if (at.pid === ancestor) return chain;
    chain.push(at);
  }
  return null;
}

async function until<T>(check: () => T | undefined | false, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the engine dies with steward start', () => {
  const prefix = uniquePrefix('orphans');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-orphans-'));
  const engineFile = path.join(dir, 'engine.mjs');
  const helperFile = path.join(dir, 'helper.mjs');
  writeFileSync(engineFile, fakeEngine);
  writeFileSync(helperFile, 'setInterval(() => {}, 1000);\n');
  const configFile = path.join(dir, 'steward.yaml');
  writeFileSync(
    configFile,
    JSON.stringify({ engine: { command: [process.execPath, engineFile], start_timeout: 20_000 } }),
  );
  const engines = () =>
    processes().filter((p) => p.args.includes(engineFile) && !p.args.includes('engine-reaper'));
  const helpers = () => processes().filter((p) => p.args.includes(helperFile));
  const started: ChildProcess[] = [];

  afterAll(async () => {
    for (const child of started) {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {}
    }
    // Whatever the test left (it fails when something is), by the pids it saw, never by name.
    for (const p of [...engines(), ...helpers()]) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {}
    }
    await dropPrefix(prefix);
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(): Promise<ChildProcess> {
    const port = await freePort();
    // Its own process group, so that the test can kill the group as a supervisor would.
    const child = spawn(process.execPath, [cliPath, 'start'], {
      cwd: dir,
      detached: true,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        REDIS_URL: testRedisUrl(),
        STEWARD_REDIS_PREFIX: prefix,
        STEWARD_CONFIG: configFile,
        STEWARD_DATA_DIR: path.join(dir, 'data'),
        STEWARD_WORKSPACE: path.join(dir, 'workspace'),
        STEWARD_PORT: String(port),
        STEWARD_HOST: '127.0.0.1',
        STEWARD_LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
      },
      stdio: ['ignore', 'ignore', process.env.TEST_LOG_LEVEL ? 'inherit' : 'ignore'],
    });
    started.push(child);
    await until(
      () => {
        const all = processes();
        const engine = all.find(
          (p) => engines().some((e) => e.pid === p.pid) && between(all, child.pid, p) !== null,
        );
        return engine && all.some((p) => p.ppid === engine.pid && p.args.includes(helperFile));
      },
      60_000,
      'the engine of the new steward start and its helper',
    );
    return child;
  }

  const exited = (child: ChildProcess) =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((r) => child.once('exit', () => r()));

  it('SIGKILL ends the engine within 10 s; an engine whose reaper was killed too is ended by the next start; five restarts leave one engine, a stop none', async () => {
    let previous: number[] = [];
    for (let round = 1; round <= 5; round++) {
      const child = await start();
      const now = engines();
      // The engines of earlier rounds are gone, whichever way their steward died.
      expect(now.filter((e) => previous.includes(e.pid))).toEqual([]);
      expect(now).toHaveLength(1);
      expect(helpers()).toHaveLength(1);
      previous = now.map((e) => e.pid);
      const middle = between(processes(), child.pid, now[0] as Proc) ?? [];

      if (round % 2 === 1) {
        // Steward alone, as the OOM killer would.
        const killedAt = Date.now();
        process.kill(child.pid as number, 'SIGKILL');
        await exited(child);
        await until(() => engines().length === 0 && helpers().length === 0, 10_000, 'no engine');
        expect(Date.now() - killedAt).toBeLessThan(10_000);
      } else {
        // Steward's whole group and whatever stands between it and the engine (its reaper):
        // the engine is left running, for the next start to find through its pid file.
        process.kill(-(child.pid as number), 'SIGKILL');
        for (const p of middle) process.kill(p.pid, 'SIGKILL');
        await exited(child);
        await new Promise((r) => setTimeout(r, 500));
        expect(engines().map((e) => e.pid)).toEqual(previous);
      }
    }

    const last = await start();
    expect(engines()).toHaveLength(1);
    expect(helpers()).toHaveLength(1);
    expect(engines().filter((e) => previous.includes(e.pid))).toEqual([]);
    process.kill(last.pid as number, 'SIGTERM');
    await exited(last);
    expect(last.exitCode).toBe(0);
    expect(engines()).toHaveLength(0);
    expect(helpers()).toHaveLength(0);
    // A clean stop leaves no pid file behind.
    expect(readdirSync(path.join(dir, 'data', 'run'))).toEqual([]);
  }, 240_000);
});
