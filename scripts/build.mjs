// `npm run build`: a fresh dist (tsc never deletes the output of a moved or removed module, and
// a stale file there could still be imported), then the Lua of src/store/lua beside
// dist/store/lua-commands.js, since tsc emits only JavaScript, then the script thread's module
// bundled into one file with its V8 code cache, then the admin web UI (ui/) into
// dist/ui with Vite, each asset also stored gzip- and brotli-compressed for @fastify/static.
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = new URL('../', import.meta.url);
rmSync(new URL('dist', root), { recursive: true, force: true });
const tsc = spawnSync(
  process.execPath,
  [new URL('node_modules/typescript/bin/tsc', root).pathname, '-p', 'tsconfig.build.json'],
  { cwd: root, stdio: 'inherit' },
);
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
cpSync(new URL('src/store/lua', root), new URL('dist/store/lua', root), { recursive: true });

// The script thread's module as one file: a new thread then loads one module rather than the
// hundred or so of the interpreter and the thread's code (src/workers/script-runs/pool.ts picks
// it when it is not older than run-task.js). Without rolldown (a production install without dev
// dependencies) the threads load run-task.js and its imports as they are.
let rolldown;
try {
  ({ rolldown } = await import('rolldown'));
} catch {
  console.warn(
    'rolldown is not installed: script threads load dist/workers/script-runs/run-task.js',
  );
}
if (rolldown) {
  const threadDir = new URL('dist/workers/script-runs/', root);
  const bundle = await rolldown({
    input: new URL('run-task.js', threadDir).pathname,
    platform: 'node',
    logLevel: 'warn',
  });
  // CommonJS, so that src/workers/script-runs/bundle-loader.ts can compile it with V8's code cache.
  await bundle.write({
    file: new URL('run-task.bundle.cjs', threadDir).pathname,
    format: 'cjs',
    exports: 'named',
  });
  await bundle.close();
  // The cache, once for node's defaults (tests, tools) and once for the options of `npm start`,
  // the `steward` command and Docker: V8 takes a cache only under the flags it was made with.
  const { nodeHeapOptions } = await import(new URL('dist/cli/node-options.js', root).href);
  for (const options of [[], nodeHeapOptions]) {
    const cache = spawnSync(
      process.execPath,
      [...options, new URL('scripts/thread-cache.mjs', root).pathname],
      { cwd: root, stdio: 'inherit' },
    );
    if (cache.status !== 0) process.exit(cache.status ?? 1);
  }
}

// A production install without dev dependencies (the Docker runtime stage copies a built dist)
// has no Vite: the API then runs without the UI and says so at start.
let vite;
try {
  vite = await import('vite');
} catch {
  console.warn('vite is not installed: dist/ui not built (the API serves no web UI)');
  process.exit(0);
}
await vite.build({
  configFile: new URL('ui/vite.config.ts', root).pathname,
  logLevel: process.env.CI ? 'warn' : 'info',
});
const assets = new URL('dist/ui/assets/', root);
for (const name of readdirSync(assets)) {
  if (!/\.(js|css|svg|json|map)$/.test(name)) continue;
  const body = readFileSync(new URL(name, assets));
  writeFileSync(new URL(`${name}.gz`, assets), gzipSync(body, { level: 9 }));
  writeFileSync(
    new URL(`${name}.br`, assets),
    brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
  );
}
