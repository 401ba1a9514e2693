import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { LoadedConfig } from '../config/load.js';
import { EngineUnavailableError } from '../errors/engine-errors.js';
import type { Logger } from '../log/logger.js';
import { loopbackAddress } from '../net/loopback.js';
import { freePort } from '../store/embedded-redis.js';
import { basicAuthHeader } from './client.js';
import { inheritedEngineEnv, lockdownEngineEnv, offlineEngineEnv } from './engine-env.js';
import { endLeftoverEngines, enginePidFile } from './engine-pid-files.js';
import { buildOpencodeConfig, type ToolServerLink } from './opencode-config.js';
import { identify, leadsItsGroup, type ProcessIdentity } from './process-identity.js';
import { reaperCommand } from './reaper-command.js';

export type EngineStatus = 'starting' | 'running' | 'restarting' | 'stopped';

export interface EngineSupervisorOptions {
  config: Pick<LoadedConfig, 'engine' | 'paths'>;
  log: Logger;
  /** How the engine reaches Steward's tools. */
  tools: ToolServerLink;
  /**
   * Address the engine listens on; default loopback. Only the engine container (`steward
   * engine`) listens wider, behind its password, for the API and workers of other containers.
   */
  hostname?: string;
  /** Default: a random one per supervisor, so nothing else on the machine can drive the engine. */
  password?: string;
  /**
   * Steward's own environment (the CLI passes `process.env`). Only an allow-list of it reaches
   * the engine: it must not see Redis URLs, JWT secrets or keys meant for Steward.
   */
  baseEnv?: Record<string, string | undefined>;
  backoff?: { initialMs: number; maxMs: number };
  /** Time between SIGTERM and SIGKILL at stop (and when Steward is gone). */
  stopGraceMs?: number;
}

export interface EngineSupervisor {
  /** Spawns the engine; resolves once it answers its health check. */
  start(): Promise<{ url: string; password: string }>;
  stop(): Promise<void>;
  status(): EngineStatus;
  /** Valid once `start` was called; stays the same across restarts. */
  readonly url: string;
  readonly password: string;
  /** Process id of the current engine (tests). */
  pid(): number | undefined;
}

/** An engine that stayed up this long is healthy again: the next crash restarts after 1 s. */
const STABLE_MS = 30_000;

interface Running {
  /** The reaper: Steward's child, the engine's parent. */
  proc: ChildProcess;
  /** Known once the reaper reports the spawn. */
  engine: ProcessIdentity | null;
}

export function createEngineSupervisor(options: EngineSupervisorOptions): EngineSupervisor {
  const { config, log } = options;
  const engine = config.engine;
  const command = engine.command;
  if (!command || command.length === 0) throw new Error('engine.command is not set');
  const backoff = options.backoff ?? { initialMs: 1000, maxMs: 30_000 };
  const stopGraceMs = options.stopGraceMs ?? 5000;
  const password = options.password ?? randomBytes(24).toString('base64url');
  const hostname = options.hostname ?? loopbackAddress;
  const configContent = JSON.stringify(
    buildOpencodeConfig({ extra: engine.config, tools: options.tools }),
  );

  let state: EngineStatus = 'stopped';
  let port: number | undefined = engine.port;
  let child: Running | null = null;
  let leftoversChecked = false;
  const pidFile = enginePidFile(config.paths.data);
  const owner = identify(process.pid);
  let stopping = false;
  let delay = backoff.initialMs;
  let healthyAt = 0;
  let restartTimer: NodeJS.Timeout | null = null;
  let starting: Promise<{ url: string; password: string }> | null = null;

  const url = () => {
    if (port === undefined) throw new Error('engine supervisor not started');
    return `http://${loopbackAddress}:${port}`;
  };

  function environment(): Record<string, string> {
    const env: Record<string, string> = {};
    for (const name of inheritedEngineEnv) {
      const value = options.baseEnv?.[name];
      if (value !== undefined) env[name] = value;
    }
    return {
      ...env,
      ...offlineEngineEnv,
      ...engine.env,
      ...lockdownEngineEnv,
      OPENCODE_SERVER_PASSWORD: password,
      OPENCODE_CONFIG_CONTENT: configContent,
    };
  }

  // Not the workspace: OpenCode loads plugins (code) and project config from its working
  // directory, and the AI can write to the workspace through Steward's file tools.
  const engineDir = path.join(config.paths.data, 'engine');

  function spawnEngine(): Running {
    mkdirSync(engineDir, { recursive: true, mode: 0o700 });
    const [bin, ...prefix] = command as string[];
    const args = [...prefix, 'serve', '--hostname', hostname, '--port', String(port), '--pure'];
    // Through the reaper, which puts the engine in a process group of its own (so stop() also
    // ends the MCP servers it started) and ends that group when this process is gone.
    const [node, ...reaperArgs] = reaperCommand(stopGraceMs, [bin as string, ...args]);
    const proc = spawn(node as string, reaperArgs, {
      cwd: engineDir,
      env: environment(),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const running: Running = { proc, engine: null };
    const relay = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim()) log.debug({ engine: stream }, line.slice(0, 2000));
      }
    };
    proc.stdout?.on('data', relay('stdout'));
    proc.stderr?.on('data', relay('stderr'));
    proc.on('message', (message: { type?: string; pid?: number; start?: string | null }) => {
      if (message.type === 'error') log.error({ err: message }, 'engine process error');
      if (message.type !== 'started' || !Number.isInteger(message.pid)) return;
      running.engine = { pid: message.pid as number, start: message.start ?? '' };
      log.info({ pid: message.pid, port }, 'engine starting');
      const reaper = proc.pid === undefined ? null : identify(proc.pid);
      if (owner && message.start && running === child) {
        try {
          pidFile.write({ owner, reaper, engine: running.engine });
        } catch (err) {
          log.warn({ err, file: pidFile.file }, 'could not write the engine pid file');
        }
      }
    });
    proc.on('error', (err) => log.error({ err }, 'engine reaper process error'));
    proc.once('exit', (code, signal) => onExit(running, code, signal));
    return running;
  }

  function onExit(running: Running, code: number | null, signal: NodeJS.Signals | null) {
    // The reaper ends the engine's group before it exits; one killed outright could not.
    killEngine(running, 'SIGKILL');
    if (running !== child) return;
    child = null;
    pidFile.remove();
    if (stopping) return;
    if (healthyAt && Date.now() - healthyAt > STABLE_MS) delay = backoff.initialMs;
    healthyAt = 0;
    state = 'restarting';
    log.warn({ code, signal, restartInMs: delay }, 'engine exited; restarting');
    scheduleRestart();
  }

  function scheduleRestart() {
    restartTimer = setTimeout(() => {
      restartTimer = null;
      if (stopping) return;
      const running = spawnEngine();
      child = running;
      void waitHealthy(running).catch((err: unknown) => {
        log.warn({ err }, 'engine did not become healthy after restart');
        // Its exit schedules the next attempt.
        if (running === child) end(running, 'SIGKILL');
      });
    }, delay);
    delay = Math.min(delay * 2, backoff.maxMs);
  }

  async function waitHealthy(running: Running): Promise<void> {
    const deadline = Date.now() + engine.start_timeout;
    const headers = { authorization: basicAuthHeader(password) };
    while (Date.now() < deadline) {
      if (stopping || running !== child)
        throw new EngineUnavailableError('AI engine stopped while starting');
      try {
        // A request that connects while the engine is still booting can hang: bound each one.
        const res = await fetch(`${url()}/global/health`, {
          headers,
          signal: AbortSignal.timeout(1000),
        });
        if (res.ok) {
          state = 'running';
          healthyAt = Date.now();
          log.info({ pid: running.engine?.pid, url: url() }, 'engine running');
          return;
        }
      } catch {}
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new EngineUnavailableError(`AI engine did not start within ${engine.start_timeout} ms`);
  }

  async function start() {
    if (starting) return starting;
    stopping = false;
    state = 'starting';
    starting = (async () => {
      port ??= engine.port ?? (await freePort());
      if (!leftoversChecked) {
        leftoversChecked = true;
        // An engine of a Steward killed with its reaper still holds its memory (and maybe the
        // port): it goes before a new one starts.
        await endLeftoverEngines(config.paths.data, stopGraceMs, log);
      }
      const running = spawnEngine();
      child = running;
      try {
        await waitHealthy(running);
      } catch (err) {
        // Its exit schedules a restart: the supervisor keeps trying in the background while
        // the API answers 503.
        if (running === child) end(running, 'SIGKILL');
        starting = null;
        throw err;
      }
      return { url: url(), password };
    })();
    return starting;
  }

  async function stop() {
    stopping = true;
    state = 'stopped';
    starting = null;
    if (restartTimer) clearTimeout(restartTimer);
    restartTimer = null;
    const running = child;
    if (!running) return;
    const { proc } = running;
    if (proc.exitCode === null && proc.signalCode === null) {
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      // The reaper passes SIGTERM to the engine's group and SIGKILLs it after the grace.
      end(running, 'SIGTERM');
      const late = setTimeout(() => end(running, 'SIGKILL'), stopGraceMs + 500);
      const hung = setTimeout(() => proc.kill('SIGKILL'), stopGraceMs + 1500);
      await exited;
      clearTimeout(late);
      clearTimeout(hung);
    }
    child = null;
    pidFile.remove();
    log.info('engine stopped');
  }

  /**
   * SIGTERM: the reaper passes it to the engine's group and SIGKILLs the group after the grace.
   * SIGKILL: the group goes at once, through the reaper and directly (a reaper past helping).
   */
  function end(running: Running, signal: 'SIGTERM' | 'SIGKILL') {
    const { proc } = running;
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    if (signal === 'SIGTERM') {
      proc.kill('SIGTERM');
      return;
    }
    if (proc.connected) proc.send({ type: 'kill' }, () => {});
    killEngine(running, 'SIGKILL');
  }

  return {
    start,
    stop,
    status: () => state,
    get url() {
      return url();
    },
    password,
    pid: () => child?.engine?.pid,
  };
}

/** Signals the engine's process group, only while the engine is still that very process. */
function killEngine(running: Running, signal: NodeJS.Signals): void {
  const engine = running.engine;
  if (!engine || !leadsItsGroup(engine)) return;
  try {
    process.kill(-engine.pid, signal);
  } catch {}
}
