// The parts a script run passes through besides the queue, each measured alone, so that
// bench:scripts can add them up to the floor of a run at concurrency 1 (raw BullMQ + bare HTTP +
// script thread) and show what is left for Steward's own code: Fastify's routing and hooks, the
// auth, validation, rate-limit and approval checks, the history write, and BullMQ's fetches and
// completion when they share a process with all of that.
// - bare HTTP: the same node:http client and request as the runs, against a node:http server that
//   answers at once with a body of the answer's size (bench/bare-http-server.mjs), client and
//   server in one process (as the bench's in-process side has them), or the server in a process
//   of its own with the bench as the client (as Steward is deployed);
// - script thread: Steward's own pool (src/workers/script-runs/pool.ts) running the bench script
//   from its compile cache, a task shaped as the worker's: the hop to a thread, the run, the hop
//   back.
// The in-process parts run in a child process of their own (this file, run with an IPC channel),
// not in the bench's process, where Steward runs too: a second pool and a second HTTP server there
// would have V8 meet other shapes and functions in Steward's own calls (a second class in BullMQ's
// calls cost Steward 5% of its runs/s: src/workers/start-first-worker.ts).
import { fileURLToPath } from 'node:url';
import { createScriptPool } from '../dist/workers/script-runs/pool.js';
import { startBareServer } from './bare-http-server.mjs';
import { child, measure } from './lib.mjs';
import { SOURCE, post } from './script-runs-setup.mjs';

const BODY = JSON.stringify({ args: { a: 1, b: 2 } });
// A bearer token of a real one's length.
const HEADERS = { authorization: `Bearer ${'x'.repeat(180)}` };

/** One request of a run's shape to the bare server on `port`. */
function bareRequest(port) {
  const url = `http://127.0.0.1:${port}/api/scripts/bench.star/test`;
  return async () => {
    const body = await post(url, HEADERS, BODY);
    if (!body.success) throw new Error('bare server: bad answer');
  };
}

/** The bare HTTP floor with its server in a process of its own; this process is the client. */
export async function openBareHttpApart() {
  const server = await child(fileURLToPath(new URL('./bare-http-server.mjs', import.meta.url)));
  const one = bareRequest(server.first);
  for (let i = 0; i < 200; i++) await one();
  return { measure: (n) => measure(n, 1, one), close: server.stop };
}

/** The parts measured in a child process: `measure('http' | 'thread', n)` at concurrency 1. */
export async function openPartsProbe() {
  const probe = await child(fileURLToPath(import.meta.url));
  let pending = null;
  probe.proc.on('message', (m) => pending?.(m));
  return {
    measure: (what, n) =>
      new Promise((resolve) => {
        pending = resolve;
        probe.proc.send({ what, n });
      }),
    close: probe.stop,
  };
}

/** The script-thread floor: Steward's pool running the bench script, one task at a time. */
function threadRun(pool) {
  const limits = {
    steps: 10_000_000,
    wall_time: 30_000,
    memory_mb: 128,
    output_bytes: 1 << 20,
    http_body_bytes: 10 << 20,
    http_requests: 50,
  };
  const hash = `sha256:${'0'.repeat(64)}`;
  return async () => {
    const result = await pool.run(
      {
        name: 'bench.star',
        hash,
        source: SOURCE,
        args: { a: 1, b: 2 },
        deadline: Date.now() + 30_000,
        limits,
        declaredSecrets: [],
        secretValues: new Map(),
      },
      new AbortController().signal,
    );
    if (!result.success || result.result.sum !== 3) throw new Error('thread: bad run');
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.send) {
  const server = await startBareServer();
  const pool = createScriptPool({ threads: 0, limits: { memory_mb: 128 } });
  const runs = { http: bareRequest(server.port), thread: threadRun(pool) };
  for (const run of Object.values(runs)) for (let i = 0; i < 200; i++) await run();
  process.on('message', async ({ what, n }) => process.send(await measure(n, 1, runs[what])));
  process.on('SIGTERM', async () => {
    await pool.destroy();
    await server.close();
    process.exit(0);
  });
  process.send('ready');
}
