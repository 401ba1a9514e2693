import { createHmac } from 'node:crypto';
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
      ...(opts.secretMode ? { secretMode: opts.secretMode } : {}),
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
  it('gives a handle for a declared secret, None for a declared one with no value, and the declared names', () => {
    expect(
      run(
        'k = secrets.get("API_KEY")\nresult = [str(k), type(k), repr("Bearer " + k), secrets.get("UNSET"), secrets.list(), k]',
      ),
    ).toEqual([
      '<secret API_KEY>',
      'secret',
      'Bearer <secret API_KEY>',
      null,
      ['API_KEY', 'UNSET'],
      '<secret API_KEY>',
    ]);
  });

  it('gives the values themselves under scripts.secret_values: plain', () => {
    expect(
      run('result = [secrets.get("API_KEY"), secrets.get("UNSET")]', { secretMode: 'plain' }),
    ).toEqual(['k-123', null]);
  });

  it('refuses a secret the script did not declare, even when it has a value', () => {
    expect(
      run('result = secrets.get("OTHER")', { secretValues: new Map([['OTHER', 'leak']]) }),
    ).toMatch(/secrets\.get: secret "OTHER" is not declared in this script's "# @secrets:" header/);
  });
});

describe('hmac module', () => {
  const hex = (alg: string, key: string, msg: string) =>
    createHmac(alg, key).update(msg).digest('hex');

  it('signs with a secret key or a plain one, as node:crypto does, into a plain digest', () => {
    expect(
      run(
        'k = secrets.get("API_KEY")\nresult = [hmac.sha256(k, "body"), hmac.sha1(k, "body"), hmac.sha256("plain", "täxt 😀"), hmac.sha256("x" + k, k)]',
      ),
    ).toEqual([
      hex('sha256', 'k-123', 'body'),
      hex('sha1', 'k-123', 'body'),
      hex('sha256', 'plain', 'täxt 😀'),
      hex('sha256', 'xk-123', 'k-123'),
    ]);
    expect(run('result = hmac.sha256(key = "a", msg = b"\\x00\\xff")')).toBe(
      createHmac('sha256', 'a')
        .update(Buffer.from([0, 255]))
        .digest('hex'),
    );
  });

  it('refuses a secret message under a plain key, whose digest would let guesses be tested', () => {
    expect(run('result = hmac.sha256("known", secrets.get("API_KEY"))')).toMatch(
      /hmac\.sha256 of a secret message under a plain key: cannot read secret API_KEY/,
    );
    expect(run('result = hmac.sha256(1, "m")')).toMatch(/for parameter key: got int, want string/);
  });
});

describe('base64 module', () => {
  it('encodes and decodes text, in the standard or the URL-safe alphabet', () => {
    expect(
      run(
        'result = [base64.encode("user:pässwört?>"), base64.encode("user:pässwört?>", url_safe = True), base64.decode("dXNlcjpww6Rzc3fDtnJ0Pz4="), base64.decode("dXNlcjpww6Rzc3fDtnJ0Pz4", url_safe = True), base64.decode("_-8", url_safe = True) if False else base64.encode(b"\\xfb\\xff")]',
      ),
    ).toEqual([
      Buffer.from('user:pässwört?>').toString('base64'),
      Buffer.from('user:pässwört?>').toString('base64').replace(/\+/g, '-').replace(/\//g, '_'),
      'user:pässwört?>',
      'user:pässwört?>',
      '+/8=',
    ]);
  });

  it('refuses text that is not base64 or not UTF-8 once decoded', () => {
    expect(run('result = base64.decode("ab$c")')).toMatch(/base64\.decode: not base64 text/);
    expect(run('result = base64.decode("a")')).toMatch(/not base64 text/);
    expect(run('result = base64.decode("_w==")')).toMatch(/pass url_safe = True/);
    expect(run('result = base64.decode("/w==")')).toMatch(/not UTF-8 text/);
  });

  it('encodes a secret into a secret, and refuses to decode one', () => {
    expect(run('result = "Basic " + base64.encode("user:" + secrets.get("API_KEY"))')).toBe(
      'Basic <secret API_KEY>',
    );
    expect(run('result = len(base64.encode(secrets.get("API_KEY")))')).toMatch(
      /len: cannot read secret API_KEY/,
    );
    expect(run('result = base64.decode(secrets.get("API_KEY"))')).toMatch(
      /base64\.decode: cannot read secret API_KEY/,
    );
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

  it('refuses a misplaced secret before the request counts or leaves', () => {
    const k = 'secrets.get("API_KEY")';
    // A header name cannot even be a dict key.
    expect(run(`http.get("http://x/", headers={${k}: "v"})`)).toMatch(
      /hash: cannot read secret API_KEY/,
    );
    expect(run(`http.get("http://x/#" + ${k})`)).toMatch(
      /<secret API_KEY> is in the URL's fragment/,
    );
    expect(run(`http.post("http://x/", content_type = ${k})`)).toMatch(
      /http\.post: content_type: cannot read secret API_KEY/,
    );
  });

  it('refuses a secret whose text a header value cannot carry, without showing it', () => {
    const out = run('http.get("http://x/", headers={"X-Key": secrets.get("API_KEY")})', {
      secretValues: new Map([['API_KEY', 'line\r\nInjected: 1']]),
    });
    expect(out).toMatch(
      /header X-Key: <secret API_KEY> holds a character a header value cannot carry/,
    );
    expect(out).not.toContain('Injected');
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
