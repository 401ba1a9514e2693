import { spawn } from 'node:child_process';

export interface ShellResult {
  stdout: string;
  stderr: string;
  /** The exit status of the block's last command. */
  status: number;
}

/**
 * One bash reading commands from a pipe, as a person types them into a terminal: variables a
 * block sets (`TOKEN=…`) stay for the next block, files it writes stay in its directory. It ends
 * when its standard input closes, so it goes with the test process however that ends.
 */
export interface Shell {
  run(block: string, ms?: number): Promise<ShellResult>;
  close(): Promise<void>;
}

export function startShell(cwd: string, env: Record<string, string>): Shell {
  const child = spawn('bash', ['--noprofile', '--norc'], {
    cwd,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  let blocks = 0;
  return {
    async run(block, ms = 30_000) {
      stdout = '';
      stderr = '';
      const marker = `__end_of_block_${(blocks += 1)}__`;
      child.stdin.write(`${block}\nprintf '\\n%s %d\\n' ${marker} "$?"\n`);
      const end = new RegExp(`\\n${marker} (\\d+)\\n`);
      const deadline = Date.now() + ms;
      for (;;) {
        const match = end.exec(stdout);
        if (match) {
          return { stdout: stdout.slice(0, match.index), stderr, status: Number(match[1]) };
        }
        if (child.exitCode !== null || Date.now() > deadline) {
          throw new Error(
            `the block did not finish:\n${block}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`,
          );
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin.end();
      await exited;
    },
  };
}

/**
 * Kills the process groups it is given when the test process ends in any way, SIGKILL included:
 * a small sh outside the test's process group, waiting for the end of its standard input. A
 * test that stops its processes itself calls `close`, which ends the reaper without killing.
 */
export interface Reaper {
  watch(pgid: number): void;
  /** Ends the reaper, killing nothing. */
  close(): void;
  /** Kills every group watched, as if the test process had died. */
  killAll(): void;
}

export function startReaper(): Reaper {
  const child = spawn(
    'sh',
    [
      '-c',
      'groups=; while read g; do groups="$groups $g"; done; for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done',
    ],
    { stdio: ['pipe', 'ignore', 'ignore'], detached: true },
  );
  return {
    watch(pgid) {
      child.stdin.write(`${pgid}\n`);
    },
    close() {
      child.kill('SIGKILL');
    },
    killAll() {
      child.stdin.end();
    },
  };
}
