/**
 * The V8 heap options of Steward's server processes (`start`, `api`, `worker`). They are node's
 * own command-line options, so they live where node is called: the `start` script in
 * package.json, the shebang of `main.ts` (the `steward` command), the Docker entrypoint and
 * `npm run bench:scripts`; test/cli/node-options.test.ts keeps them in line with this list.
 *
 * Why (measured with `npm run bench:footprint`, same runs, against node's defaults):
 * - `--max-semi-space-size=4`: V8 grows the young generation of a busy process to 16 MB
 *   semi-spaces and keeps them committed until its memory reducer runs, half a minute after the
 *   process goes quiet. Steward's requests live for milliseconds, so 4 MB semi-spaces hold them
 *   as well and the process idles about 15 MB smaller.
 * - `--heap-growing-percent=50`: objects of requests in flight get promoted under load, and by
 *   default V8 lets the old generation reach up to four times its live size before a full
 *   collection, so a load run left about 60 MB of dead objects committed (201 MB right after
 *   3,000 runs at concurrency 32, against 159–165 MB with both options).
 * The cost: more frequent collections. Script runs per second at concurrency 32 came out at
 * 0.38–0.46× the raw BullMQ figure with the options and 0.42–0.46× without them, over four
 * pairs (`npm run bench:scripts`): within this machine's swing, a few percent at most.
 */
export const nodeHeapOptions = ['--max-semi-space-size=4', '--heap-growing-percent=50'] as const;
