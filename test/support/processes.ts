import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const cliPath = path.resolve(__dirname, '../../dist/cli/main.js');

/** Environment that points a spawned `steward` role at a test's Redis prefix and dirs. */
export function roleEnv(
  redisUrl: string,
  prefix: string,
  dir: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    REDIS_URL: redisUrl,
    STEWARD_REDIS_PREFIX: prefix,
    STEWARD_DATA_DIR: path.join(dir, 'data'),
    STEWARD_WORKSPACE: path.join(dir, 'workspace'),
    STEWARD_LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    ...extra,
  };
}

/** Starts `steward <role>` as a real child process. */
export function spawnRole(role: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [cliPath, role], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr?.on('data', (chunk: Buffer) => {
    if (process.env.TEST_LOG_LEVEL) process.stderr.write(chunk);
  });
  return child;
}

export async function stopProcess(
  child: ChildProcess,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
