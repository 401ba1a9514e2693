/**
 * The V8 heap options of Steward's server processes (`start`, `api`, `worker`). They are node's
 * own command-line options, so they live where node is called: the `start` script in
 * package.json, the shebang of `main.ts` (the `steward` command), the Docker entrypoint and
 * `npm run bench:scripts`; test/cli/node-options.test.ts keeps them in line with this list.
 *
 * Why (measured with `npm run bench:footprint`, same runs, against node's defaults):
 * - `--heap-growing-percent=50`: objects of requests in flight get promoted under load, and by
 *   default V8 lets the old generation reach up to four times its live size before a full
 *   collection, so a load run left about 60 MB of dead objects committed (201 MB right after
 *   3,000 runs at concurrency 32, against 159–165 MB with this and a 4 MB semi-space cap).
 *
 * No `--max-semi-space-size`: it held the main thread's young generation to 8 MB semi-spaces,
 * but V8 lets that flag override the young generation each script thread is given
 * (`threadYoungGenerationMb` in `src/workers/script-runs/pool.ts`), so every script thread grew
 * 8 MB semi-spaces too: with one `http.get` a run, 16 threads stay busy at concurrency 16, and
 * `bench:soak` saw RSS creep as they grew (issue 46). The main thread's young generation grows
 * under load to V8's 16 MB semi-spaces and shrinks again once the process is quiet.
 */
export const nodeHeapOptions = ['--heap-growing-percent=50'] as const;
