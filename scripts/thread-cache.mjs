// Part of `npm run build`, run once per set of node options Steward's processes start with:
// loads the script thread's bundle, runs the scripts of scripts/thread-warmup through its task
// entry as a new thread would, and writes the V8 code cache of every function they compiled
// beside the bundle (src/workers/script-runs/bundle-loader.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { configSchema } from '../dist/config/schema.js';
import { loadBundle, writeBundleCache } from '../dist/workers/script-runs/bundle-loader.js';

const bundle = new URL('../dist/workers/script-runs/run-task.bundle.cjs', import.meta.url).pathname;
const dir = new URL('thread-warmup/', import.meta.url);
const loaded = loadBundle(bundle, false);
const runTask = loaded.exports.default;
const limits = configSchema.parse({}).scripts.limits;
for (const name of readdirSync(dir).filter((f) => f.endsWith('.star'))) {
  const task = {
    name,
    hash: name,
    source: readFileSync(new URL(name, dir), 'utf8'),
    args: { user: 'warm-up', n: 3 },
    deadline: Date.now() + 10_000,
    limits,
    declaredSecrets: [],
    secretValues: new Map(),
    bridge: { run: 0 },
  };
  // Twice: the second run takes the thread's compiled-program path.
  for (let i = 0; i < 2; i++) {
    const result = runTask(task);
    if (result.success !== (name !== 'errors.star')) {
      console.error(`thread warm-up ${name}: ${JSON.stringify(result)}`);
      process.exit(1);
    }
  }
}
writeBundleCache(bundle, loaded);
