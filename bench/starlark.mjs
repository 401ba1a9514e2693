// Compares Steward's Starlark interpreter with CPython on programs in the common subset of
// both languages, two or more per workload class (recursive calls, building and transforming
// strings, sorting with composite keys, integers past 2^53, loops, comprehensions; the last
// five programs were written after the interpreter's fast paths, to see whether those carry
// over to programs nobody tuned for), measured in the same run:
// - cold: the first run in a fresh process, parse and compile included, for both runtimes; the
//   runtime's own start-up is not counted on either side; the median of BENCH_COLD_RUNS
//   processes (3) on each side, this machine being noisy; the interpreter is loaded as a new
//   script thread loads it, with V8's code cache (see `starlarkCold`), and the same runs without
//   the cache are shown beside them, alternated with them;
// - cold runs also report their system time and minor page faults on both sides: touching
//   fresh memory is a large part of a cold run on a VM where a fault costs several µs; and their
//   split into compile (parse, resolve, compile) and run, on both sides, the Starlark side
//   compiling with `compileModule` and running the program as a script thread does;
// - warm: a later run in the same process (Starlark from its compiled program, as a worker
//   thread's cache serves a script's next run; CPython re-executing its compiled code), best of N.
// - before and after (BENCH_BEFORE=<another checkout, built there with `npm run build`>): that
//   checkout's interpreter measured beside this one, alternated with it, against the same CPython
//   figures; see `beforeCold`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compileModule } from '../dist/starlark/index.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const COLD_RUNS = Number(process.env.BENCH_COLD_RUNS ?? 3);
/** Compiles of each program in the warm process, after its first (best of these). */
const COMPILE_RUNS = 20;
// BENCH_ONLY=fib,hanoi runs just those programs (while working on one workload class).
const ONLY = process.env.BENCH_ONLY?.split(',');
const BEFORE = process.env.BENCH_BEFORE ? path.resolve(process.env.BENCH_BEFORE) : undefined;

const programs = {
  fib: `
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)

def main():
    return fib(25)
`,
  int_loops: `
def main():
    total = 0
    for i in range(2000000):
        total += i * 3 % 7
        if i % 5 == 0:
            total -= 1
    return total
`,
  strings: `
def main():
    parts = []
    for i in range(200000):
        parts.append("item" + str(i))
    s = ",".join(parts)
    up = s.upper()
    pieces = up.split(",")
    n = 0
    for p in pieces:
        if p.startswith("ITEM1") and p.endswith("9"):
            n += len(p.replace("ITEM", "x"))
    return n
`,
  comprehensions: `
def main():
    squares = [x * x for x in range(600000) if x % 3 == 0]
    pairs = {x: x + 1 for x in range(200000)}
    nested = [a + b for a in range(600) for b in range(600) if (a + b) % 2 == 0]
    return len(squares) + len(pairs) + len(nested)
`,
  word_count: `
def main():
    words = "the quick brown fox jumps over the lazy dog and runs far away from the dog".split(" ")
    counts = {}
    for i in range(40000):
        for w in words:
            key = w + str(i % 50)
            counts[key] = counts.get(key, 0) + 1
    best = 0
    for k in counts:
        if counts[k] > best:
            best = counts[k]
    return len(counts) * 1000 + best
`,
  tree_sum: `
def build(depth, seed):
    if depth == 0:
        return seed % 10
    return (build(depth - 1, seed * 2 + 1), build(depth - 1, seed * 3 + 2))

def total(t, depth):
    if depth == 0:
        return t
    return total(t[0], depth - 1) + total(t[1], depth - 1)

def main():
    return total(build(16, 1), 16)
`,
  hanoi: `
def moves(n, a, b, c, out):
    if n == 0:
        return 0
    k = moves(n - 1, a, c, b, out)
    out[0] += a * 3 + c
    return k + 1 + moves(n - 1, b, a, c, out)

def main():
    out = [0]
    return moves(17, 1, 2, 3, out) + out[0]
`,
  caesar: `
def shift(text, k):
    out = []
    for i in range(len(text)):
        ch = text[i]
        o = ord(ch)
        if o >= 97 and o <= 122:
            out.append(chr((o - 97 + k) % 26 + 97))
        else:
            out.append(ch)
    return "".join(out)

def main():
    text = "the quick brown fox jumps over the lazy dog " * 400
    n = 0
    for k in range(12):
        s = shift(text, k)
        n += len(s.replace(" ", "")) + s.count("a")
    return n
`,
  sort_tuples: `
def main():
    items = []
    seed = 7
    for i in range(60000):
        seed = (seed * 1103515245 + 12345) % 2147483648
        items.append((seed % 97, seed % 1000, i))
    a = sorted(items, key = lambda t: (t[0], -t[1], t[2]))
    b = sorted(items)
    return a[0][2] + a[-1][2] * 3 + b[100][2]
`,
  lcg64: `
def main():
    m = 18446744073709551616
    seed = 42
    acc = 0
    for i in range(200000):
        seed = (seed * 6364136223846793005 + 1442695040888963407) % m
        acc = (acc + (seed >> 33)) % m
    return acc
`,
  fnv_hash: `
def fnv(s):
    h = 14695981039346656037
    for i in range(len(s)):
        h = ((h ^ ord(s[i])) * 1099511628211) % 18446744073709551616
    return h

def main():
    x = 0
    for i in range(6000):
        x = x ^ fnv("key-" + str(i) + "-value")
    return x
`,
  sort_key: `
def main():
    items = []
    seed = 12345
    for i in range(150000):
        seed = (seed * 1103515245 + 12345) % 2147483648
        items.append((str(seed % 1000), seed))
    s = sorted(items, key = lambda t: t[1])
    s2 = sorted(items, key = lambda t: t[0])
    return s[0][1] + len(s2)
`,
  gcd_count: `
def gcd(a, b):
    if b == 0:
        return a
    return gcd(b, a % b)

def count(n):
    if n == 0:
        return 0
    return 1 + count(n - 1)

def main():
    t = 0
    for i in range(1, 3000):
        t += gcd(i * 7919, 104729 + i)
    for i in range(200):
        t += count(100)
    return t
`,
  csv_report: `
def row(i):
    return ",".join([str(i), "name%d" % (i % 97), str(i * 37 % 1000), "x" if i % 3 else "y"])

def main():
    lines = [row(i) for i in range(30000)]
    text = "\\n".join(lines)
    totals = {}
    for line in text.split("\\n"):
        f = line.split(",")
        k = f[1] + "/" + f[3]
        totals[k] = totals.get(k, 0) + int(f[2])
    out = ["%s=%d" % (k, totals[k]) for k in sorted(totals)]
    return len("; ".join(out))
`,
  records_sort: `
def main():
    people = [{"name": "p%d" % i, "age": (i * 31) % 90, "city": "c%d" % (i % 13)} for i in range(20000)]
    by = sorted(people, key = lambda p: (p["city"], -p["age"], p["name"]))
    oldest = {}
    for p in by:
        if p["city"] not in oldest:
            oldest[p["city"]] = p["name"]
    return len(oldest) + len(by[0]["name"]) + by[-1]["age"]
`,
  xorshift: `
M = 18446744073709551615

def main():
    x = 88172645463325252
    acc = 0
    for i in range(40000):
        x ^= (x << 13) & M
        x ^= x >> 7
        x ^= (x << 17) & M
        acc = (acc + x) % 1000000007
    return acc
`,
  sieve: `
def main():
    n = 200000
    flags = [True] * (n + 1)
    flags[0] = False
    flags[1] = False
    for i in range(2, 450):
        if flags[i]:
            for j in range(i * i, n + 1, i):
                flags[j] = False
    return len([i for i in range(n + 1) if flags[i]])
`,
};

const SUFFIX = '\nresult = main()\n';
const OPTIONS = { recursion: true };
const LIMITS = { maxSteps: 1e10 };

/**
 * Warm: compiled once, run RUNS more times after a first run; best of those. Also the best of
 * COMPILE_RUNS compiles after the first: what a thread that has compiled other scripts pays for
 * a new one.
 */
function starlarkWarm(src) {
  const compile = () =>
    compileModule({ file: 'bench.star', source: src + SUFFIX, predeclared: [], options: OPTIONS });
  const program = compile();
  let compileMs = Infinity;
  for (let r = 0; r < COMPILE_RUNS; r++) {
    const t0 = performance.now();
    const again = compile();
    compileMs = Math.min(compileMs, performance.now() - t0);
    again.release();
  }
  let best = Infinity;
  let result;
  for (let r = 0; r <= RUNS; r++) {
    const t0 = performance.now();
    const m = program.run({ predeclared: {}, limits: LIMITS });
    const ms = performance.now() - t0;
    result = m.globals.get('result');
    program.release();
    if (r > 0) best = Math.min(best, ms);
  }
  return { ms: best, compile: compileMs, result: String(result) };
}

/**
 * The interpreter as a script thread loads it: one CommonJS bundle, compiled with V8's code cache
 * of what the build's warm-up scripts (scripts/thread-warmup) ran, by the thread's own loader
 * (src/workers/script-runs/bundle-loader.ts). The thread's bundle exports only its task entry,
 * which runs scripts in Steward's dialect (no recursion), so the bench bundles the interpreter's
 * entry the same way and makes its cache from the same warm-up scripts, in a child process under
 * the same node options as the cold runs (V8 takes a cache only under the flags it was made with);
 * rolldown runs there too: loaded into this process, it slowed the warm runs measured here (the
 * strings program's from 32 to 45 ms).
 */
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-bench-starlark-'));
process.on('exit', () => fs.rmSync(work, { recursive: true, force: true }));
const bundleFile = path.join(work, 'starlark.bundle.cjs');
const loaderUrl = new URL('../dist/workers/script-runs/bundle-loader.js', import.meta.url).href;
const warmupDir = new URL('../scripts/thread-warmup/', import.meta.url).pathname;
const cacheMaker = path.join(work, 'make-cache.mjs');
fs.writeFileSync(
  cacheMaker,
  `
  import { readdirSync, readFileSync } from 'node:fs';
  const { rolldown } = await import(${JSON.stringify(import.meta.resolve('rolldown'))});
  const bundle = await rolldown({
    input: ${JSON.stringify(new URL('../dist/starlark/index.js', import.meta.url).pathname)},
    platform: 'node',
    logLevel: 'warn',
  });
  await bundle.write({ file: ${JSON.stringify(bundleFile)}, format: 'cjs', exports: 'named' });
  await bundle.close();
  const { loadBundle, writeBundleCache } = await import(${JSON.stringify(loaderUrl)});
  const loaded = loadBundle(${JSON.stringify(bundleFile)}, false);
  const { execModule, jsonModule, toStarlark, callFunction } = loaded.exports;
  const dir = ${JSON.stringify(warmupDir)};
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.star'))) {
    for (let i = 0; i < 2; i++) {
      try {
        const m = execModule({
          file: name,
          source: readFileSync(dir + name, 'utf8'),
          predeclared: { args: toStarlark({ user: 'warm-up', n: 3 }), json: jsonModule() },
          print: () => {},
        });
        callFunction(m.globals.get('main'), [], null, m.thread);
      } catch (e) {
        if (name !== 'errors.star') throw e;
      }
    }
  }
  writeBundleCache(${JSON.stringify(bundleFile)}, loaded);
`,
);
execFileSync(process.execPath, [cacheMaker], { stdio: 'inherit' });

const coldChild = path.join(work, 'cold.mjs');
fs.writeFileSync(
  coldChild,
  `
  const { loadBundle } = await import(${JSON.stringify(loaderUrl)});
  const [file, cache] = process.argv.slice(2);
  const loaded = loadBundle(${JSON.stringify(bundleFile)}, cache === 'cache');
  if (loaded.cached !== (cache === 'cache')) throw new Error('code cache: expected ' + cache);
  const { compileModule } = loaded.exports;
  const src = (await import('node:fs')).readFileSync(file, 'utf8');
  const r0 = process.resourceUsage();
  const t0 = performance.now();
  const program = compileModule({ file: 'bench.star', source: src, predeclared: [], options: ${JSON.stringify(OPTIONS)} });
  const t1 = performance.now();
  const m = program.run({ predeclared: {}, limits: { maxSteps: 1e10 } });
  console.log(performance.now() - t0);
  console.log(String(m.globals.get('result')));
  const r1 = process.resourceUsage();
  console.log((r1.systemCPUTime - r0.systemCPUTime) / 1000);
  console.log(r1.minorPageFault - r0.minorPageFault);
  console.log(t1 - t0);
`,
);

/**
 * The other checkout's interpreter (BENCH_BEFORE), loaded from its own `dist` as ES modules: how
 * script threads loaded it before they had a code cache, and for a later checkout about what the
 * `no cache` column shows for this one. A checkout without a compile cache (`compileModule`)
 * parsed and compiled every run, so its warm runs are `execModule` again; with one, its compiled
 * program runs again, as here. Cold: the first run in a fresh process; warm: the best of RUNS
 * runs after a first, in a process of its own.
 */
const beforeChild = path.join(work, 'before.mjs');
if (BEFORE !== undefined)
  fs.writeFileSync(
    beforeChild,
    `
  const [file, mode, runs] = process.argv.slice(2);
  const src = (await import('node:fs')).readFileSync(file, 'utf8');
  const api = await import(${JSON.stringify(path.join(BEFORE ?? '', 'dist/starlark/index.js'))});
  const opts = { file: 'bench.star', source: src, options: ${JSON.stringify(OPTIONS)} };
  const limits = { maxSteps: 1e10 };
  // Timed from here: a cold run includes the compile, whichever way this checkout does it.
  const t1 = performance.now();
  let run;
  if (api.compileModule) {
    const program = api.compileModule({ ...opts, predeclared: [] });
    run = () => { const m = program.run({ predeclared: {}, limits }); program.release(); return m; };
  } else {
    run = () => api.execModule({ ...opts, predeclared: {}, limits });
  }
  let m = run();
  let ms = performance.now() - t1;
  if (mode === 'warm') {
    ms = Infinity;
    for (let r = 0; r < Number(runs); r++) {
      const t = performance.now();
      m = run();
      ms = Math.min(ms, performance.now() - t);
    }
  }
  console.log(ms);
  console.log(String(m.globals.get('result')));
`,
  );

/** The other checkout's first run in a fresh process (`cold`), or its best later one (`warm`). */
function before(src, mode) {
  const file = path.join(work, 'before.star');
  fs.writeFileSync(file, src + SUFFIX);
  const out = execFileSync(process.execPath, [beforeChild, file, mode, String(RUNS)], {
    encoding: 'utf8',
  })
    .trim()
    .split('\n');
  return { ms: Number(out[0]), result: out[1] };
}

/**
 * Cold: a fresh node process; the program parsed, compiled and run once, timed inside, by the
 * interpreter loaded with its code cache (`cache`) or without (`none`).
 */
function starlarkCold(src, cache = 'cache') {
  const file = path.join(work, 'bench.star');
  fs.writeFileSync(file, src + SUFFIX);
  const out = execFileSync(process.execPath, [coldChild, file, cache], { encoding: 'utf8' })
    .trim()
    .split('\n');
  return {
    ms: Number(out[0]),
    result: out[1],
    sys: Number(out[2]),
    faults: Number(out[3]),
    compile: Number(out[4]),
  };
}

/** The median time, system time and page faults of `COLD_RUNS` calls of `run`, and the result of the first. */
function medianOf(run) {
  const runs = Array.from({ length: COLD_RUNS }, run);
  return {
    ms: median(runs.map((r) => r.ms)),
    sys: median(runs.map((r) => r.sys)),
    faults: median(runs.map((r) => r.faults)),
    compile: median(runs.map((r) => r.compile)),
    result: runs[0].result,
  };
}

/** CPython: the first run (cold) and the best of RUNS later ones (warm) in one fresh process. */
function runPython(src) {
  const file = path.join(os.tmpdir(), `steward-bench-${process.pid}.py`);
  const driver = `
import time, sys, resource
sys.setrecursionlimit(100000)
src = open(${JSON.stringify(file + '.src')}).read()
r0 = resource.getrusage(resource.RUSAGE_SELF)
t0 = time.perf_counter()
code = compile(src + "\\nresult = main()\\n", "bench", "exec")
compiled = (time.perf_counter() - t0) * 1000
g = {}
exec(code, g)
cold = (time.perf_counter() - t0) * 1000
r1 = resource.getrusage(resource.RUSAGE_SELF)
best = None
for _ in range(${RUNS}):
    g = {}
    t0 = time.perf_counter()
    exec(code, g)
    dt = (time.perf_counter() - t0) * 1000
    best = dt if best is None or dt < best else best
print(cold)
print(best)
print(g["result"])
print((r1.ru_stime - r0.ru_stime) * 1000)
print(r1.ru_minflt - r0.ru_minflt)
print(compiled)
again = None
for _ in range(${COMPILE_RUNS}):
    t0 = time.perf_counter()
    compile(src + "\\nresult = main()\\n", "bench", "exec")
    dt = (time.perf_counter() - t0) * 1000
    again = dt if again is None or dt < again else again
print(again)
`;
  fs.writeFileSync(file + '.src', src);
  fs.writeFileSync(file, driver);
  try {
    const out = execFileSync('python3', [file], { encoding: 'utf8' }).trim().split('\n');
    return {
      cold: Number(out[0]),
      warm: Number(out[1]),
      result: out[2],
      sys: Number(out[3]),
      faults: Number(out[4]),
      compile: Number(out[5]),
      compileWarm: Number(out[6]),
    };
  } finally {
    fs.rmSync(file, { force: true });
    fs.rmSync(file + '.src', { force: true });
  }
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length / 2;
  return s.length % 2 ? s[Math.floor(mid)] : (s[mid - 1] + s[mid]) / 2;
}

const rows = [];
for (const [name, src] of Object.entries(programs)) {
  if (ONLY !== undefined && !ONLY.includes(name)) continue;
  // Alternated, so that the machine's drift falls on both alike.
  const bare = [];
  const earlier = [];
  const cold = medianOf(() => {
    bare.push(starlarkCold(src, 'none'));
    if (BEFORE !== undefined) earlier.push(before(src, 'cold'));
    return starlarkCold(src);
  });
  const noCache = median(bare.map((r) => r.ms));
  const warm = starlarkWarm(src);
  const beforeWarm = BEFORE === undefined ? undefined : before(src, 'warm');
  const pys = Array.from({ length: COLD_RUNS }, () => runPython(src));
  const p = {
    cold: median(pys.map((r) => r.cold)),
    warm: Math.min(...pys.map((r) => r.warm)),
    result: pys[0].result,
    sys: median(pys.map((r) => r.sys)),
    faults: median(pys.map((r) => r.faults)),
    compile: median(pys.map((r) => r.compile)),
    compileWarm: Math.min(...pys.map((r) => r.compileWarm)),
  };
  for (const [label, r] of [
    ['cold', cold],
    ['warm', warm],
    ...(beforeWarm === undefined
      ? []
      : [
          ['before', earlier[0]],
          ['before warm', beforeWarm],
        ]),
  ]) {
    if (r.result !== p.result)
      console.warn(`${name} (${label}): results differ (starlark ${r.result}, python ${p.result})`);
  }
  rows.push({
    name,
    cold: cold.ms,
    pyCold: p.cold,
    coldRatio: cold.ms / p.cold,
    noCache,
    noCacheRatio: noCache / p.cold,
    warm: warm.ms,
    pyWarm: p.warm,
    warmRatio: warm.ms / p.warm,
    sys: cold.sys,
    pySys: p.sys,
    faults: cold.faults,
    pyFaults: p.faults,
    compile: cold.compile,
    pyCompile: p.compile,
    compileWarm: warm.compile,
    pyCompileWarm: p.compileWarm,
    ...(beforeWarm === undefined
      ? {}
      : { beforeCold: median(earlier.map((r) => r.ms)), beforeWarm: beforeWarm.ms }),
  });
}
const f = (v, w = 9) => v.toFixed(1).padStart(w);
const x = (v) => `${v.toFixed(2)}x`.padStart(7);
const head = ['cold ms', 'py cold', 'ratio', 'warm ms', 'py warm', 'ratio'];
console.log(
  `${'program'.padEnd(14)} ${head.map((h, i) => h.padStart(i % 3 < 2 ? 9 : 7)).join(' ')}`,
);
for (const r of rows) {
  console.log(
    `${r.name.padEnd(14)} ${f(r.cold)} ${f(r.pyCold)} ${x(r.coldRatio)} ${f(r.warm)} ${f(r.pyWarm)} ${x(r.warmRatio)}`,
  );
}
// What the code cache saves a cold run: the same cold runs with the interpreter compiled from
// its source (V8 parsing and compiling each of its functions on first call); ratio*: without
// the cache, against CPython.
console.log(
  `\n${'cold run'.padEnd(14)} ${['cache', 'no cache', 'ratio*'].map((h) => h.padStart(9)).join(' ')}`,
);
for (const r of rows) {
  console.log(`${r.name.padEnd(14)} ${f(r.cold)} ${f(r.noCache)} ${x(r.noCacheRatio)}`);
}
// Where a cold run's time goes besides computing: the kernel's share (mostly page faults, which
// cost several µs each on a VM) and the minor faults, per side.
console.log(
  `\n${'cold run'.padEnd(14)} ${['sys ms', 'py sys', 'faults', 'py faults'].map((h) => h.padStart(9)).join(' ')}`,
);
for (const r of rows) {
  const n = (v) => String(Math.round(v)).padStart(9);
  console.log(`${r.name.padEnd(14)} ${f(r.sys)} ${f(r.pySys)} ${n(r.faults)} ${n(r.pyFaults)}`);
}
// A cold run split: parsing and compiling the program, then running it, on each side; the last
// column is the part of the Starlark cold run that is not its compile, against CPython's whole
// cold run. A short program's compile is mostly V8 running the interpreter's own compiler for
// the first time, while CPython's compiler is C.
console.log(
  `\n${'cold run'.padEnd(14)} ${['compile', 'run', 'py comp', 'py run', 'run/py'].map((h) => h.padStart(9)).join(' ')}`,
);
for (const r of rows) {
  console.log(
    `${r.name.padEnd(14)} ${f(r.compile)} ${f(r.cold - r.compile)} ${f(r.pyCompile)} ${f(r.pyCold - r.pyCompile)} ${x((r.cold - r.compile) / r.pyCold).padStart(9)}`,
  );
}
// A new script in a thread that has compiled others: the best of COMPILE_RUNS compiles after
// the first, in one process, on each side.
console.log(
  `\n${'warm compile'.padEnd(14)} ${['ms', 'py ms', 'ratio'].map((h) => h.padStart(9)).join(' ')}`,
);
for (const r of rows) {
  console.log(
    `${r.name.padEnd(14)} ${r.compileWarm.toFixed(3).padStart(9)} ${r.pyCompileWarm.toFixed(3).padStart(9)} ${x(r.compileWarm / r.pyCompileWarm).padStart(9)}`,
  );
}
if (BEFORE !== undefined) {
  // Before (the other checkout) and after (this one), each against CPython from the same run.
  console.log(`\nbefore: ${BEFORE}`);
  const cols = ['cold bef', 'cold aft', 'py cold', 'bef/py', 'aft/py'];
  cols.push(...cols.map((h) => h.replace('cold', 'warm')));
  console.log(`${'program'.padEnd(14)} ${cols.map((h) => h.padStart(8)).join(' ')}`);
  const g = (v) => v.toFixed(1).padStart(8);
  const y = (v) => `${v.toFixed(2)}x`.padStart(8);
  for (const r of rows) {
    console.log(
      `${r.name.padEnd(14)} ${g(r.beforeCold)} ${g(r.cold)} ${g(r.pyCold)} ${y(r.beforeCold / r.pyCold)} ${y(r.coldRatio)} ${g(r.beforeWarm)} ${g(r.warm)} ${g(r.pyWarm)} ${y(r.beforeWarm / r.pyWarm)} ${y(r.warmRatio)}`,
    );
  }
  const m = (k, py) => median(rows.map((r) => r[k] / r[py])).toFixed(2);
  console.log(
    `median ratio before: cold ${m('beforeCold', 'pyCold')}x, warm ${m('beforeWarm', 'pyWarm')}x`,
  );
}
const coldMedian = median(rows.map((r) => r.coldRatio));
const warmMedian = median(rows.map((r) => r.warmRatio));
const worst = rows.reduce((a, b) => (b.coldRatio > a.coldRatio ? b : a));
const noCacheMedian = median(rows.map((r) => r.noCacheRatio));
console.log(
  `median ratio (starlark / python): cold ${coldMedian.toFixed(2)}x (without the code cache ${noCacheMedian.toFixed(2)}x), warm ${warmMedian.toFixed(2)}x`,
);
console.log(
  `targets: cold median <= 0.8x ${coldMedian <= 0.8 ? 'met' : 'NOT met'}; ` +
    `no program over 1.5x cold ${worst.coldRatio <= 1.5 ? 'met' : `NOT met (${worst.name} ${worst.coldRatio.toFixed(2)}x)`}; ` +
    `warm median <= 0.6x ${warmMedian <= 0.6 ? 'met' : 'NOT met'}`,
);
