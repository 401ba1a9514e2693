/**
 * The V8 heap options of Steward's server processes (`start`, `api`, `worker`). They are node's
 * own command-line options, so they live where node is called: the `start` script in
 * package.json, the shebang of `main.ts` (the `steward` command), the Docker entrypoint and
 * `npm run bench:scripts`; test/cli/node-options.test.ts keeps them in line with this list.
 *
 * Why (measured with `npm run bench:footprint`, same runs, against node's defaults):
 * - `--max-semi-space-size=8`: V8 grows the young generation of a busy process to 16 MB
 *   semi-spaces and keeps them committed until its memory reducer runs, half a minute after the
 *   process goes quiet. Steward's requests live for milliseconds, so smaller semi-spaces hold
 *   them as well. At 4 MB the process idled 108–111 MB and stood at 162–163 MB right after the
 *   load run; at 8 MB, 109–115 and 176–180 MB (two runs each, alternated). But at 4 MB the
 *   young generation fills twice as often under load (the collector took 15% of the main
 *   thread at concurrency 32 in a profile): the process spent 440–489 µs of CPU per script run
 *   there, against 360–416 µs at 8 MB (four pairs of 6,000 runs each, after a first round).
 *   It is meant for the main thread only: V8 reads the flag each time it makes an isolate and
 *   lets it override the young generation a worker thread is given, so the script pool clears
 *   it before its first thread starts (`threadYoungGenerationMb` in
 *   `src/workers/script-runs/pool.ts`; issue 46).
 * - `--heap-growing-percent=50`: objects of requests in flight get promoted under load, and by
 *   default V8 lets the old generation reach up to four times its live size before a full
 *   collection, so a load run left about 60 MB of dead objects committed (201 MB right after
 *   3,000 runs at concurrency 32, against 159–165 MB with both options at 4 MB).
 */
export const nodeHeapOptions = ['--max-semi-space-size=8', '--heap-growing-percent=50'] as const;
