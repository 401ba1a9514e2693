// tsc emits only JavaScript: the Lua of src/store/lua goes beside dist/store/lua-commands.js.
import { cpSync } from 'node:fs';

cpSync(
  new URL('../src/store/lua', import.meta.url),
  new URL('../dist/store/lua', import.meta.url),
  {
    recursive: true,
  },
);
