import { describe, expect, it } from 'vitest';
import { execModule } from '../../src/starlark/index.js';
import { warmUpInterpreter } from '../../src/starlark/warm-up.js';

const PROGRAM = `
def key(t):
    return (t[1], -t[0])

def main():
    rows = sorted([(i, str(i * 7 % 13)) for i in range(50)], key = key)
    h = 14695981039346656037
    for r in rows:
        h = ((h ^ r[0]) * 1099511628211) % 18446744073709551616
    return "%d:%s" % (h, rows[0][1])

result = main()
`;

function run() {
  const m = execModule({ file: 'p.star', source: PROGRAM });
  return { result: String(m.globals.get('result')), steps: m.steps };
}

describe('warmUpInterpreter', () => {
  it('runs its sample in the Steward dialect, with no host values', () => {
    expect(() => warmUpInterpreter(1)).not.toThrow();
  });

  it('changes no later run: same result, same step count', () => {
    const before = run();
    warmUpInterpreter(2);
    expect(run()).toEqual(before);
  });

  it('zero rounds does nothing', () => {
    expect(() => warmUpInterpreter(0)).not.toThrow();
  });
});
