import { describe, expect, it } from 'vitest';
import { configSchema } from '../../../src/config/schema.js';
import type { RunLimits } from '../../../src/queue/script-runs.js';
import runTask from '../../../src/workers/script-runs/run-task.js';
import type { RunTask } from '../../../src/workers/script-runs/task-types.js';
import { loose } from '../../support/run-result.js';

const defaults = configSchema.parse({}).scripts.limits;

/** One run on this thread (host calls are covered by the pool test, on a real thread). */
function run(
  source: string,
  extra: Partial<Omit<RunTask, 'limits'>> & { limits?: Partial<RunLimits> } = {},
) {
  return loose(
    runTask({
      name: 't.star',
      hash: 'h',
      source,
      args: {},
      deadline: Date.now() + 5000,
      declaredSecrets: [],
      secretValues: new Map(),
      ...extra,
      limits: { ...defaults, ...extra.limits },
      bridge: { run: 0 },
    }),
  );
}

describe('run task entry points', () => {
  it('runs the same script again from its compiled program, with nothing of the run before', () => {
    const src = 'seen = args.get("x")\ndef main():\n    print(seen)\n    return {"seen": seen}\n';
    const first = run(src, { hash: 'same', args: { x: 'first' } });
    expect(first).toEqual({ success: true, result: { seen: 'first' }, logs: ['first'] });
    const second = run(src, { hash: 'same', args: {} });
    expect(second).toEqual({ success: true, result: { seen: null }, logs: ['None'] });
    // A failing run releases the program too.
    expect(run(src, { hash: 'same', args: { x: 'third' }, function: 'nope' }).success).toBe(false);
    expect(run(src, { hash: 'same', args: { x: 'fourth' } }).result).toEqual({ seen: 'fourth' });
  });

  it("answers main()'s dict as the result", () => {
    expect(run('def main():\n    return {"ok": True, "n": 2}\n')).toEqual({
      success: true,
      result: { ok: true, n: 2 },
      logs: [],
    });
  });

  it('without main, answers the global result; without either, {"value": None}', () => {
    expect(run('result = {"a": 1}\n').result).toEqual({ a: 1 });
    expect(run('x = 1\n').result).toEqual({ value: null });
  });

  it('wraps anything other than a dict as {"value": …}', () => {
    expect(run('result = [1, "two"]\n').result).toEqual({ value: [1, 'two'] });
    expect(run('def main():\n    return "hi"\n').result).toEqual({ value: 'hi' });
  });

  it('calls a named function with list args as positional and dict args as keywords', () => {
    const src = 'def add(a, b=10):\n    return a - b\n';
    expect(run(src, { function: 'add', args: [5, 3] }).result).toEqual({ value: 2 });
    expect(run(src, { function: 'add', args: { b: 1, a: 5 } }).result).toEqual({ value: 4 });
    expect(run(src, { function: 'nope' })).toEqual({
      success: false,
      error: 'function nope is not defined',
      logs: [],
    });
    expect(run('nope = 3\n', { function: 'nope' }).error).toBe('function nope is not defined');
  });

  it('gives the script its args', () => {
    expect(run('result = {"got": args["who"]}\n', { args: { who: 'ann' } }).result).toEqual({
      got: 'ann',
    });
  });
});

describe('run task results travel as JSON', () => {
  it('writes ints beyond 2^53 as their exact decimal text and dict keys as strings', () => {
    expect(run('result = {"big": 1 << 70, 1: "one", "f": 1.5}\n').result).toEqual({
      big: '1180591620717411303424',
      '1': 'one',
      f: 1.5,
    });
  });

  it('keeps a "__proto__" key as data', () => {
    const result = run('result = {"__proto__": {"admin": True}}\n').result as Record<
      string,
      unknown
    >;
    expect(Object.keys(result)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });
});

describe('run task failures', () => {
  it('collects print() output as logs, and keeps them when the run fails', () => {
    expect(run('print("a")\nprint("b")\nresult = 1\n').logs).toEqual(['a', 'b']);
    expect(run('print("before")\nfail("boom")\n')).toMatchObject({
      success: false,
      logs: ['before'],
      error: expect.stringMatching(/boom/),
    });
  });

  it('fails a run whose prints, or whose result, are over output_bytes', () => {
    const limits = { output_bytes: 100 };
    expect(
      run('def main():\n    for i in range(20):\n        print("0123456789")\n', { limits }).error,
    ).toMatch(/output exceeds the limit/);
    // Counted in UTF-8 bytes: 40 characters of 3 bytes each are over 100.
    expect(run('print("€" * 40)\n', { limits }).error).toMatch(
      /output limit of 100 bytes exceeded$/,
    );
    expect(run('result = {"x": "y" * 200}\n', { limits })).toEqual({
      success: false,
      error: 'output limit of 100 bytes exceeded',
      logs: [],
    });
  });

  it("fails on syntax errors and on the step limit, with the interpreter's message", () => {
    const syntax = run('def main(:\n');
    expect(syntax.success).toBe(false);
    expect(syntax.error).toMatch(/t\.star/);
    const spin = run(
      'def main():\n    x = 0\n    for i in range(1000000):\n        x += i\n    return x\n',
      {
        limits: { steps: 1000 },
      },
    );
    expect(spin.success).toBe(false);
    expect(spin.error).toMatch(/step/i);
  });

  it('fails a run past its deadline', () => {
    const r = run(
      'def main():\n    x = 0\n    for i in range(100000000):\n        x += i\n    return x\n',
      {
        deadline: Date.now() + 50,
        limits: { steps: 1_000_000_000 },
      },
    );
    expect(r.success).toBe(false);
    expect(r.error).toMatch(/timed out|wall time|time limit/i);
  });
});

describe('run task with secrets', () => {
  const secrets = {
    declaredSecrets: ['API_KEY'],
    secretValues: new Map<string, string | null>([['API_KEY', 'pässwört-Quiet Horse']]),
  };

  it('shows a handle in results and logs, never the value', () => {
    const out = run(
      'def main():\n    k = secrets.get("API_KEY")\n    print("token", k, "Bearer " + k)\n    return {"k": k, "all": [k, "x" + k]}\n',
      secrets,
    );
    expect(out).toEqual({
      success: true,
      result: { k: '<secret API_KEY>', all: ['<secret API_KEY>', 'x<secret API_KEY>'] },
      logs: ['token <secret API_KEY> Bearer <secret API_KEY>'],
    });
  });

  it('fails a read naming the secret, and tells the administrator about scripts.secret_values', () => {
    for (const read of [
      'k.upper()',
      'k[::-1]',
      '",".join([c for c in k.elems()])',
      'k.split(" ")',
      '[ord(c) + 1 for c in k]',
    ]) {
      const out = run(`def main():\n    k = secrets.get("API_KEY")\n    return ${read}\n`, secrets);
      expect(out.success, read).toBe(false);
      expect(out.error, read).toMatch(/^t\.star:3:\d+: .*cannot read secret API_KEY: /);
      expect(out.error, read).toMatch(/an administrator can set scripts\.secret_values: plain/);
      expect(JSON.stringify(out), read).not.toMatch(/pässwört|PÄSSWÖRT|Quiet|Horse/i);
    }
  });

  it('gives scripts the values under scripts.secret_values: plain', () => {
    expect(
      run('def main():\n    return {"up": secrets.get("API_KEY").upper()}\n', {
        ...secrets,
        secretMode: 'plain',
      }).result,
    ).toEqual({ up: 'PÄSSWÖRT-QUIET HORSE' });
  });
});
