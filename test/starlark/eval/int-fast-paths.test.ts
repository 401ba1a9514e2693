import { describe, expect, it } from 'vitest';
import { fails, run } from './helpers.js';

/** JS reference for Starlark's floored modulo and shifts on exact integers. */
const mod = (a: bigint, b: bigint): bigint => {
  const r = a % b;
  return r !== 0n && r < 0n !== b < 0n ? r + b : r;
};

/** The canonical Starlark int (number when safe), as toJS returns it. */
const canon = (b: bigint): number | bigint =>
  b >= BigInt(Number.MIN_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b;

const edges = [
  0n,
  1n,
  -1n,
  7n,
  -7n,
  2n ** 31n - 1n,
  2n ** 31n,
  -(2n ** 31n),
  2n ** 53n - 1n,
  2n ** 53n,
  -(2n ** 53n) + 1n,
  -(2n ** 53n),
  2n ** 63n + 5n,
  2n ** 64n - 1n,
  2n ** 64n,
  -(2n ** 64n) - 3n,
  3n ** 50n,
];

describe('int operators around the bigint boundary', () => {
  it('+, -, *, % and >> agree with exact arithmetic, for variables and constants', () => {
    const mods = [
      1n,
      2n,
      8n,
      2n ** 31n,
      97n,
      2n ** 53n,
      2n ** 64n,
      2n ** 64n + 1n,
      -8n,
      -(2n ** 64n),
    ];
    const lits = edges.map(String).join(', ');
    const modLits = mods.map(String).join(', ');
    const got = run(`
def main():
    xs = [${lits}]
    ms = [${modLits}]
    out = []
    for a in xs:
        out.append([a * 1103515245, a * -3, a * 0, a + 12345, a - 7, a % 2147483648, a % 1000, a >> 33, a >> 0, a >> 60])
        for b in xs:
            out.append([a + b, a - b, a * b])
        for m in ms:
            out.append(a % m)
    return out
result = main()
`);
    const want: unknown[] = [];
    for (const a of edges) {
      want.push(
        [
          a * 1103515245n,
          a * -3n,
          0n,
          a + 12345n,
          a - 7n,
          mod(a, 2147483648n),
          mod(a, 1000n),
          a >> 33n,
          a,
          a >> 60n,
        ].map(canon),
      );
      for (const b of edges) want.push([a + b, a - b, a * b].map(canon));
      for (const m of mods) want.push(canon(mod(a, m)));
    }
    expect(got).toEqual(want);
  });

  it('^, & and | on small ints, bigints and sets', () => {
    const got = run(`
def main():
    xs = [${edges.map(String).join(', ')}]
    out = []
    for a in xs:
        for b in xs:
            out.append([a ^ b, a & b, a | b])
    return out
result = main()
`);
    const want: unknown[] = [];
    for (const a of edges) for (const b of edges) want.push([a ^ b, a & b, a | b].map(canon));
    expect(got).toEqual(want);
    expect(
      run(
        'a = set([1, 2])\nb = set([2, 3])\nresult = [sorted(a ^ b), sorted(a & b), sorted(a | b)]',
      ),
    ).toEqual([[1, 3], [2], [1, 2, 3]]);
    expect(fails('a = 1\nb = "x"\nresult = a ^ b').message).toContain(
      'unknown binary op: int ^ string',
    );
  });

  it('shifts, mixes small ints into bigints and alternates moduli as exact arithmetic does', () => {
    // Shift counts and small xor operands come from a table of bigints made once, and a bigint
    // modulo a small int reuses the last modulus's bigint: every count and modulus must still
    // be the one asked for.
    const counts = [0, 1, 7, 13, 33, 63, 64, 255, 511];
    const moduli = [7, 1000000007, 7, 11, 2147483648, 11, 1000000007];
    const got = run(`
def main():
    xs = [${edges.map(String).join(', ')}]
    out = []
    for a in xs:
        for k in [${counts.join(', ')}]:
            out.append([a << k, a >> k, a ^ k])
        for m in [${moduli.join(', ')}]:
            out.append((a * a) % m)
    return out
result = main()
`);
    const want: unknown[] = [];
    for (const a of edges) {
      for (const k of counts) {
        const n = BigInt(k);
        want.push([a << n, a >> n, a ^ n].map(canon));
      }
      for (const m of moduli) want.push(canon(mod(a * a, BigInt(m))));
    }
    expect(got).toEqual(want);
  });

  it('never produces -0 and keeps errors', () => {
    expect(run('x = 0\nresult = [x * -5, -x >> 3, (-1) >> 70, 5 >> 600 if False else 0]')).toEqual([
      0, 0, -1, 0,
    ]);
    expect(Object.is(run('x = 0\nresult = x * -5'), 0)).toBe(true);
    expect(fails('x = 1 << 70\nresult = x % 0').message).toContain('integer modulo by zero');
    expect(fails('x = 5\nresult = x >> -1').message).toContain('negative shift count');
    expect(fails('x = 5\nresult = x >> 512').message).toContain('shift count too large');
    expect(fails('x = 1 << 70\nresult = x % "a"').message).toContain('unknown binary op');
  });
});
