// Compares Steward's Starlark interpreter with CPython on programs in the common subset of
// both languages. Each runtime times only the program itself (no start-up), best of N runs.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execModule } from '../dist/starlark/index.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);

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
};

function runStarlark(src) {
  let best = Infinity;
  let result;
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    const m = execModule({
      file: 'bench.star',
      source: src + '\nresult = main()\n',
      options: { recursion: true },
      limits: { maxSteps: 1e10 },
    });
    best = Math.min(best, performance.now() - t0);
    result = m.globals.get('result');
  }
  return { ms: best, result: String(result) };
}

function runPython(src) {
  const file = path.join(os.tmpdir(), `steward-bench-${process.pid}.py`);
  const driver = `
import time, sys
sys.setrecursionlimit(100000)
src = open(${JSON.stringify(file + '.src')}).read()
best = None
for _ in range(${RUNS}):
    g = {}
    t0 = time.perf_counter()
    exec(compile(src + "\\nresult = main()\\n", "bench", "exec"), g)
    dt = (time.perf_counter() - t0) * 1000
    best = dt if best is None or dt < best else best
print(best)
print(g["result"])
`;
  fs.writeFileSync(file + '.src', src);
  fs.writeFileSync(file, driver);
  try {
    const out = execFileSync('python3', [file], { encoding: 'utf8' }).trim().split('\n');
    return { ms: Number(out[0]), result: out[1] };
  } finally {
    fs.rmSync(file, { force: true });
    fs.rmSync(file + '.src', { force: true });
  }
}

const rows = [];
for (const [name, src] of Object.entries(programs)) {
  const s = runStarlark(src);
  const p = runPython(src);
  if (s.result !== p.result)
    console.warn(`${name}: results differ (starlark ${s.result}, python ${p.result})`);
  rows.push({ name, starlark: s.ms, python: p.ms, ratio: s.ms / p.ms });
}
console.log(
  `${'program'.padEnd(16)} ${'starlark ms'.padStart(12)} ${'python ms'.padStart(10)} ${'ratio'.padStart(7)}`,
);
for (const r of rows) {
  console.log(
    `${r.name.padEnd(16)} ${r.starlark.toFixed(1).padStart(12)} ${r.python.toFixed(1).padStart(10)} ${(r.ratio.toFixed(2) + 'x').padStart(7)}`,
  );
}
const ratios = rows.map((r) => r.ratio).sort((a, b) => a - b);
const mid = ratios.length / 2;
const median = ratios.length % 2 ? ratios[Math.floor(mid)] : (ratios[mid - 1] + ratios[mid]) / 2;
console.log(`median ratio (starlark / python): ${median.toFixed(2)}x`);
