import { computeGate } from '../../../src/workers/script-runs/compute-slots.js';
import { describe, expect, it } from 'vitest';
import { execModule, None, toJS } from '../../../src/starlark/index.js';
import {
  createHostModules,
  maxSleepSeconds,
  type HostRun,
} from '../../../src/workers/script-runs/host-modules.js';

/**
 * Runs `source` with the host modules of one run and answers its `result` global, or the error
 * message. HTTP calls that would reach the host are not made here: the bridge answers only from
 * another thread (see run-task and pool tests), so these tests stop before it.
 */
function run(source: string, opts: Partial<Omit<HostRun, 'bridge'>> = {}): unknown {
  try {
    const modules = createHostModules({
      bridge: { run: 0 },
      deadline: opts.deadline ?? Date.now() + 5000,
      limits: opts.limits ?? { http_requests: 10 },
      gate: opts.gate ?? computeGate(undefined, 0),
      declaredSecrets: opts.declaredSecrets ?? ['API_KEY', 'UNSET'],
      secretValues:
        opts.secretValues ??
        new Map<string, string | null>([
          ['API_KEY', 'k-123'],
          ['UNSET', null],
        ]),
    });
    const mod = execModule({
      file: 't.star',
      source,
      predeclared: new Map(Object.entries({ ...modules, args: 0 })),
    });
    return toJS(mod.globals.get('result') ?? None);
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

describe('secrets module', () => {
  it('gives a declared secret, None for a declared one with no value, and the declared names', () => {
    expect(run('result = [secrets.get("API_KEY"), secrets.get("UNSET"), secrets.list()]')).toEqual([
      'k-123',
      null,
      ['API_KEY', 'UNSET'],
    ]);
  });

  it('refuses a secret the script did not declare, even when it has a value', () => {
    expect(
      run('result = secrets.get("OTHER")', { secretValues: new Map([['OTHER', 'leak']]) }),
    ).toMatch(/secrets\.get: secret "OTHER" is not declared in this script's "# @secrets:" header/);
  });
});

describe('time module', () => {
  it('now() is the current ISO time', () => {
    const now = run('result = time.now()') as string;
    expect(Math.abs(Date.parse(now) - Date.now())).toBeLessThan(2000);
  });

  it(`sleep() takes 0 to ${maxSleepSeconds} seconds`, () => {
    const started = Date.now();
    expect(run('time.sleep(0.05)\nresult = "slept"')).toBe('slept');
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    for (const bad of ['-1', '6', '"1"']) {
      expect(run(`time.sleep(${bad})`)).toMatch(
        /time\.sleep: seconds must be a number from 0 to 5/,
      );
    }
  });

  it("a sleep past the run's deadline ends at the deadline as a wall time error", () => {
    const started = Date.now();
    expect(run('time.sleep(3)', { deadline: Date.now() + 100 })).toMatch(
      /wall time limit exceeded/,
    );
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('http module', () => {
  it("refuses requests beyond the run's limit before reaching the host", () => {
    expect(run('http.get("http://127.0.0.1/")', { limits: { http_requests: 0 } })).toMatch(
      /http\.get: more than 0 HTTP requests in one run/,
    );
  });

  it("refuses a request after the run's deadline as a wall time error", () => {
    expect(run('http.post("http://127.0.0.1/", {})', { deadline: Date.now() - 1 })).toMatch(
      /wall time limit exceeded/,
    );
  });

  it('checks headers are a dict of strings', () => {
    expect(run('http.get("http://x/", headers=[1])')).toMatch(/http\.get: headers must be a dict/);
    expect(run('http.get("http://x/", headers={"a": 1})')).toMatch(
      /http\.get: headers keys and values must be strings/,
    );
  });
});

describe('format and json', () => {
  it('format applies %-formatting to positional arguments only', () => {
    expect(run('result = format("%s has %d items", "cart", 3)')).toBe('cart has 3 items');
    expect(run('result = format("%s", x=1)')).toMatch(/format: unexpected keyword arguments/);
    expect(run('result = format()')).toMatch(/format: missing format string/);
  });

  it("json is the interpreter's module", () => {
    expect(run('result = json.decode(json.encode({"a": [1, True]}))')).toEqual({ a: [1, true] });
  });
});
