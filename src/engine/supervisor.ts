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
import { lockdownEngineEnv, offlineEngineEnv } from './engine-env.js';
import { buildOpencodeConfig, type ToolServerLink } from './opencode-config.js';

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
  /** Time between SIGTERM and SIGKILL at stop. */
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

/** Variables of Steward's environment an engine may inherit: locale, home, proxies, CAs. */
const INHERITED = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'TMPDIR',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_CACHE_HOME',
  'XDG_STATE_HOME',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
];

/** An engine that stayed up this long is healthy again: the next crash restarts after 1 s. */
const STABLE_MS = 30_000;

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
  let child: ChildProcess | null = null;
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
    for (const name of INHERITED) {
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

  function spawnEngine(): ChildProcess {
    mkdirSync(engineDir, { recursive: true, mode: 0o700 });
    const [bin, ...prefix] = command as string[];
    const args = [...prefix, 'serve', '--hostname', hostname, '--port', String(port), '--pure'];
    // Own process group, so stop() also ends the MCP servers the engine started.
    const proc = spawn(bin as string, args, {
      cwd: engineDir,
      env: environment(),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const relay = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim()) log.debug({ engine: stream }, line.slice(0, 2000));
      }
    };
    proc.stdout?.on('data', relay('stdout'));
    proc.stderr?.on('data', relay('stderr'));
    proc.on('error', (err) => log.error({ err }, 'engine process error'));
    proc.once('exit', (code, signal) => onExit(proc, code, signal));
    log.info({ pid: proc.pid, port }, 'engine starting');
    return proc;
  }

  function onExit(proc: ChildProcess, code: number | null, signal: NodeJS.Signals | null) {
    if (proc !== child) return;
    child = null;
    // Helpers the engine started (MCP servers, installers) outlive it and can hold its sockets.
    killGroup(proc, 'SIGKILL');
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
      const proc = spawnEngine();
      child = proc;
      void waitHealthy(proc).catch((err: unknown) => {
        log.warn({ err }, 'engine did not become healthy after restart');
        // Its exit schedules the next attempt.
        if (proc === child) killGroup(proc, 'SIGKILL');
      });
    }, delay);
    delay = Math.min(delay * 2, backoff.maxMs);
  }

  async function waitHealthy(proc: ChildProcess): Promise<void> {
    const deadline = Date.now() + engine.start_timeout;
    const headers = { authorization: basicAuthHeader(password) };
    while (Date.now() < deadline) {
      if (stopping || proc !== child)
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
          log.info({ pid: proc.pid, url: url() }, 'engine running');
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
      const proc = spawnEngine();
      child = proc;
      try {
        await waitHealthy(proc);
      } catch (err) {
        // Its exit schedules a restart: the supervisor keeps trying in the background while
        // the API answers 503.
        if (proc === child) killGroup(proc, 'SIGKILL');
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
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    killGroup(proc, 'SIGTERM');
    const timer = setTimeout(() => killGroup(proc, 'SIGKILL'), stopGraceMs);
    await exited;
    clearTimeout(timer);
    child = null;
    log.info('engine stopped');
  }

  return {
    start,
    stop,
    status: () => state,
    get url() {
      return url();
    },
    password,
    pid: () => child?.pid,
  };
}

function killGroup(proc: ChildProcess | null, signal: NodeJS.Signals): void {
  if (!proc?.pid) return;
  try {
    process.kill(-proc.pid, signal);
  } catch {
    try {
      proc.kill(signal);
    } catch {}
  }
}
