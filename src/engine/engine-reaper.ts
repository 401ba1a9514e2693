/**
 * The small process between Steward and its engine (`node engine-reaper.js GRACE_MS COMMAND…`,
 * started by `supervisor.ts` with an IPC channel). The engine runs in a process group of its own
 * so that its helpers (the `steward mcp` servers it starts, installers) end with it, and that
 * group must end when Steward does, however Steward ends. Node cannot ask the kernel for a
 * parent-death signal (prctl needs a native addon), but a channel to a parent closes when the
 * parent dies, SIGKILL included: on that close this process ends the engine's group (SIGTERM,
 * then SIGKILL after GRACE_MS) and exits. It sits in a group of its own too, so a signal to
 * Steward's group (a terminal's Ctrl-C, `kill -9 -PGID`) leaves it alive to do so.
 *
 * `{type: 'kill'}` from the supervisor SIGKILLs the group at once. Messages to it:
 * `{type: 'started', pid, start}` once the engine is spawned (its
 * identity goes into the pid file that lets a later start end an engine this process could not),
 * `{type: 'error', message}` when it cannot be spawned. It exits as the engine did (the same
 * signal or code), after killing what is left of the group.
 */
import { spawn } from 'node:child_process';
import { identify } from './process-identity.js';

const [graceArg, bin, ...args] = process.argv.slice(2);
const graceMs = Number(graceArg);
if (!bin || !Number.isFinite(graceMs) || !process.send) {
  process.stderr.write('usage: engine-reaper GRACE_MS COMMAND [ARGS…] (with an IPC channel)\n');
  process.exit(2);
}

// The channel's variables are Node's, for this process only.
const { NODE_CHANNEL_FD: _fd, NODE_CHANNEL_SERIALIZATION_MODE: _mode, ...env } = process.env;
const engine = spawn(bin, args, { detached: true, env, stdio: ['ignore', 'inherit', 'inherit'] });

function signalGroup(signal: NodeJS.Signals): void {
  if (engine.pid === undefined) return;
  try {
    process.kill(-engine.pid, signal);
  } catch {}
}

let ending = false;
/** Steward is gone or asks for a stop: the group gets SIGTERM, then SIGKILL after the grace. */
function end(): void {
  if (ending) return;
  ending = true;
  signalGroup('SIGTERM');
  setTimeout(() => signalGroup('SIGKILL'), graceMs).unref();
}

process.on('disconnect', end);
// The supervisor's "now": an engine that never became healthy, or outstayed its grace.
process.on('message', (message: { type?: string }) => {
  if (message.type === 'kill') signalGroup('SIGKILL');
});
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, end);

engine.once('spawn', () => {
  const pid = engine.pid as number;
  process.send?.({ type: 'started', pid, start: identify(pid)?.start ?? null }, () => {});
});

engine.once('error', (err) => {
  process.send?.({ type: 'error', message: err.message }, () => process.exit(127));
  setTimeout(() => process.exit(127), 1000).unref();
});

engine.once('exit', (code, signal) => {
  // Helpers the engine started outlive it and may hold its port: the whole group goes.
  signalGroup('SIGKILL');
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
  process.exit(code ?? 1);
});
