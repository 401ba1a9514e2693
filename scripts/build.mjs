// `npm run build`: a fresh dist (tsc never deletes the output of a moved or removed module, and
// a stale file there could still be imported), then the Lua of src/store/lua beside
// dist/store/lua-commands.js, since tsc emits only JavaScript.
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';

const root = new URL('../', import.meta.url);
rmSync(new URL('dist', root), { recursive: true, force: true });
const tsc = spawnSync(
  process.execPath,
  [new URL('node_modules/typescript/bin/tsc', root).pathname, '-p', 'tsconfig.build.json'],
  { cwd: root, stdio: 'inherit' },
);
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
cpSync(new URL('src/store/lua', root), new URL('dist/store/lua', root), { recursive: true });
