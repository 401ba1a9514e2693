import { compileModule, callFunction } from './index.js';

/**
 * A sample of everyday Starlark in the Steward dialect: calls, building and transforming
 * strings, big integers, dicts, comprehensions and sorting with composite keys. It is not any
 * benchmark's program; it only has to reach the interpreter's common paths.
 */
const SAMPLE = `
def step(a, b):
    if a < b:
        return b - a
    return a - b + 1

def calls(n):
    t = 0
    for i in range(n):
        t += step(i, n - i) + step(t % 7, 3)
    return t

def words(n):
    acc = []
    s = ""
    for i in range(n):
        w = "w" + str(i) + "-" + chr(97 + i % 26)
        s += w[:2]
        acc.append(w.upper().lower().replace("-", "_").strip())
    text = " ".join(acc)
    found = 0
    for p in text.split(" "):
        if p.startswith("w1") or p.endswith("z"):
            found += len(p) + p.find("_") + p.count("1") + ord(p[0])
    return found + len(s) + len("%s:%d" % ("x", n)) + len("{}-{}".format(n, s[:3]))

def mix(n):
    h = 1469598103934665603
    x = 12345
    for i in range(n):
        h = ((h ^ (i & 255)) * 1099511628211) % 18446744073709551616
        x = (x * 6364136223846793005 + 1442695040888963407) % 18446744073709551616
        x = x >> 3 | (x << 61) % 18446744073709551616
    return (h + x) % 1000003 + int(7.5) + int("42") + abs(-3) + int(2.5 * 4 / 3)

def tables(n):
    d = {}
    for i in range(n):
        k = "k" + str(i % 37)
        d[k] = d.get(k, 0) + i
        if i % 50 == 0:
            d.setdefault("z", []).append(i)
    keys = sorted(d.keys())
    vals = [d[k] for k in keys if k != "z"]
    squares = {i: i * i for i in range(n // 4) if i % 2}
    flat = [a * b for a in range(20) for b in range(20) if a != b]
    t = tuple(vals[:5]) + (1, 2)
    big = 0
    for k, v in d.items():
        if type(v) == "int" and v > 10:
            big += 1
        elif k in ("z", "y"):
            continue
    return len(keys) + len(vals) + len(squares) + len(flat) + len(t) + big + max(vals) - min(vals)

def order(n):
    rows = [(i % 3, -i, i * 7 % 11) for i in range(n)]
    a = sorted(rows)
    b = sorted(rows, key = lambda r: (r[2], r[0]))
    c = sorted([str(r[2]) for r in rows], reverse = True)
    less = 0
    for x, y in zip(a, b):
        if x < y:
            less += 1
    return less + len(c) + len(list(reversed(a))) + len(enumerate(c)) + (1 if any([0, 1]) and all([1]) else 0)

def main():
    return (calls(500) + words(300) + mix(300) + tables(400) + order(300) +
            len([str(f) for f in [1.5, 2.25]]) + len(repr({"a": [1, None, True]})))
`;

/**
 * Compiles and runs the sample `rounds` times, as a script thread does when it starts. V8
 * compiles the lexer, parser, compiler and runtime lazily and optimises them only once they are
 * hot; without this, a thread's first script paid for all of it (`bench:starlark` measures the
 * first run both ways).
 */
export function warmUpInterpreter(rounds = 2): void {
  for (let i = 0; i < rounds; i++) {
    const program = compileModule({ file: 'warm-up.star', source: SAMPLE, predeclared: [] });
    const mod = program.run({ predeclared: {}, limits: { maxSteps: 10_000_000 } });
    const main = mod.globals.get('main');
    if (main !== undefined) callFunction(main, [], null, mod.thread);
    program.release();
  }
}
