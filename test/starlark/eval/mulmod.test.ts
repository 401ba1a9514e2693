import { describe, expect, it } from 'vitest';
import { fails, run } from './helpers.js';

const mod = (a: bigint, b: bigint): bigint => {
  const r = a % b;
  return r !== 0n && r < 0n !== b < 0n ? r + b : r;
};

const vals = [
  0n,
  1n,
  -1n,
  12345n,
  -12345n,
  1103515245n,
  2n ** 31n - 1n,
  2n ** 32n + 7n,
  -(2n ** 40n) - 3n,
  2n ** 53n - 1n,
  -(2n ** 53n) + 1n,
];
const moduli = [1n, 2n, 1024n, 2n ** 31n, 2n ** 32n];

describe('(x * y + z) % 2^k without bigints', () => {
  it('matches exact arithmetic for every sign and size of operand', () => {
    const lits = vals.map(String).join(', ');
    const lines = moduli.map(
      (m) => `                out.append([(a * b) % ${m}, (a * b + c) % ${m}, (a * b - c) % ${m}])`,
    );
    const got = run(`
def main():
    xs = [${lits}]
    out = []
    for a in xs:
        for b in xs:
            for c in xs:
${lines.join('\n')}
    return out
result = main()
`);
    const want: number[][] = [];
    for (const a of vals)
      for (const b of vals)
        for (const c of vals)
          for (const m of moduli)
            want.push([mod(a * b, m), mod(a * b + c, m), mod(a * b - c, m)].map(Number));
    expect(got).toEqual(want);
  });

  it('keeps -0 out, bigint and float operands, errors and evaluation order', () => {
    expect(Object.is(run('x = 0\ny = -5\nresult = (x * y - 0) % 8'), 0)).toBe(true);
    expect(run('x = 1 << 70\nresult = [(x * 3 + 1) % 8, (3 * x + 5) % 4]')).toEqual([1, 1]);
    expect(run('x = 2.5\nresult = (x * 2 + 1) % 4')).toBe(2);
    expect(run('x = 3\nresult = (x * 2 + (1 << 60)) % 8')).toBe(6);
    expect(fails('x = 3\nresult = (x * 2 + "a") % 8').message).toContain(
      'unknown binary op: int + string',
    );
    expect(fails('x = "ab"\nresult = (x * 2 - 1) % 8').message).toContain(
      'unknown binary op: string - int',
    );
    const src = `
def main():
    log = []
    def z():
        log.append("z")
        return 1
    r = (3 * 5 + z()) % 4
    return [r, log]
result = main()
`;
    expect(run(src)).toEqual([0, ['z']]);
    expect(
      fails('def z():\n    fail("z ran")\ndef f():\n    return ({} * 2 + z()) % 4\nf()').message,
    ).toContain('unknown binary op: dict * int');
  });
});

describe('(x * y + z) % m for a modulus held in a variable or a bigint literal', () => {
  it('matches exact arithmetic for 2^64, other powers of two, other moduli', () => {
    const ms = [2n ** 64n, 2n ** 63n, 2n ** 64n + 1n, 97n, 1n, -(2n ** 64n)];
    const lits = vals.concat([2n ** 64n - 1n, 2n ** 70n + 5n, -(2n ** 66n)]);
    const got = run(`
def main():
    xs = [${lits.map(String).join(', ')}]
    ms = [${ms.map(String).join(', ')}]
    out = []
    for m in ms:
        for a in xs:
            for b in xs:
                out.append([(a * b) % m, (a * b + 12345) % m, (a * b - b) % m, (a + b) % m, (a - b) % m])
    for a in xs:
        out.append([(a * 1099511628211) % 18446744073709551616, (a * 3 + 1) % 18446744073709551616])
    return out
result = main()
`);
    const canon = (v: bigint): number | bigint =>
      v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
    const want: Array<Array<number | bigint>> = [];
    for (const m of ms)
      for (const a of lits)
        for (const b of lits)
          want.push(
            [
              mod(a * b, m),
              mod(a * b + 12345n, m),
              mod(a * b - b, m),
              mod(a + b, m),
              mod(a - b, m),
            ].map(canon),
          );
    const m64 = 2n ** 64n;
    for (const a of lits)
      want.push([mod(a * 1099511628211n, m64), mod(a * 3n + 1n, m64)].map(canon));
    expect(got).toEqual(want);
  });

  it('keeps errors and the order of evaluation', () => {
    expect(fails('m = 0\nx = 3\nresult = (x * x + 1) % m').message).toContain(
      'integer modulo by zero',
    );
    expect(fails('m = "s"\nx = 3\nresult = (x * x + 1) % m').message).toContain(
      'unknown binary op: int % string',
    );
    expect(run('m = 1 << 64\nx = 2.0\nresult = (x * 3 + 1) % m')).toBe(7);
    expect(run('m = 5\nresult = ("%d" + "!") % m')).toBe('5!');
    expect(run('m = 5\nx = "%d"\nresult = (x * 2 + "!") % (m, m)')).toBe('55!');
    const src = `
def main():
    log = []
    def t(v):
        log.append(v)
        return v
    m = 1 << 64
    r = (t(3) * t(5) + t(7)) % m
    return [r, log]
result = main()
`;
    expect(run(src)).toEqual([22, [3, 5, 7]]);
  });
});
