import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { starlarkCommand } from '../../src/starlark/cli.js';

function script(src: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'starlark-cli-'));
  const file = path.join(dir, 's.star');
  fs.writeFileSync(file, src);
  return file;
}

async function cli(argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await starlarkCommand(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out, err };
}

describe('steward starlark', () => {
  it('runs main() and prints the result as JSON, print output on stderr', async () => {
    const r = await cli([
      'run',
      script('def main():\n    print("hi")\n    return {"a": [1, 2]}\n'),
    ]);
    expect(r).toEqual({ code: 0, out: ['{"a":[1,2]}'], err: ['hi'] });
  });

  it('calls --function with positional or keyword --args', async () => {
    const file = script('def add(a, b = 10):\n    return a + b\nresult = 5\n');
    expect((await cli(['run', file, '--function', 'add', '--args', '[1, 2]'])).out).toEqual(['3']);
    expect((await cli(['run', file, '--function', 'add', '--args', '{"a": 1}'])).out).toEqual([
      '11',
    ]);
    expect((await cli(['run', file])).out).toEqual(['5']);
    expect((await cli(['run', script('x = 1\n')])).out).toEqual(['null']);
  });

  it('prints ints beyond 2^53 exactly', async () => {
    const file = script(
      'def main():\n    return {"big": 1 << 60, "list": [-12345678901234567890, 1.5, "x"]}\n',
    );
    expect(await cli(['run', file])).toEqual({
      code: 0,
      out: ['{"big":1152921504606846976,"list":[-12345678901234567890,1.5,"x"]}'],
      err: [],
    });
    expect((await cli(['run', script('result = 1 << 60\n')])).out).toEqual(['1152921504606846976']);
  });

  it('exits 1 with file:line:col on errors', async () => {
    const r = await cli(['run', script('def main():\n    return 1 + "a"\n')]);
    expect(r.code).toBe(1);
    expect(r.err[0]).toMatch(/s\.star:2:14: unknown binary op: int \+ string/);
  });

  it('check reports every static error without running', async () => {
    const r = await cli(['check', script('def f():\n    return a + b\n')]);
    expect(r.code).toBe(1);
    expect(r.err).toHaveLength(2);
    expect((await cli(['check', script('fail("not run")\n')])).code).toBe(0);
  });
});
