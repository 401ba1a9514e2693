import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningWorkers } from '../../src/workers/start.js';
import { createTestApp, startTestWorkers, type TestApp } from '../support/app.js';
import { adminToken, authHeader } from '../support/auth.js';
import { testRedisUrl } from '../support/redis.js';
import { createRedis } from '../../src/store/redis.js';

/**
 * Canaries: a secret set through the API, then every way a script could push it back out
 * through the test endpoint — each must come back only as `[REDACTED:…]`, and no Redis key
 * (store, history, BullMQ job data and results) may hold the value in any encoding. The scripts
 * read the value, so the deployment runs with `scripts.secret_values: plain`: redaction is the
 * second line, for values that do not pass through the interpreter as handles.
 */
const SECRET = 'canary-Zq8!x/Y+w=7';

// Encodings computed in Starlark itself, so they come from the script, not from the test.
const source = `# @description: leaks on purpose
# @secrets: CANARY
HEX = "0123456789abcdef"
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~"

def codes(s):
    return [ord(c) for c in s.elems()]

def hexed(s, upper = False):
    out = "".join([HEX[n // 16] + HEX[n % 16] for n in codes(s)])
    return out.upper() if upper else out

def b64(s):
    b = codes(s)
    out = ""
    for i in range(0, len(b), 3):
        chunk = b[i:i + 3]
        n = 0
        for c in chunk:
            n = n * 256 + c
        n = n * [1, 256, 65536][3 - len(chunk)]
        quad = [B64[(n >> 18) & 63], B64[(n >> 12) & 63], B64[(n >> 6) & 63], B64[n & 63]]
        keep = len(chunk) + 1
        out += "".join(quad[:keep]) + "=" * (4 - keep)
    return out

def urlenc(s):
    return "".join([c if c in SAFE else "%" + hexed(c, True) for c in s.elems()])

def main(prefix = ""):
    v = secrets.get("CANARY")
    print("log line with", v)
    print("hex in a log", hexed(v))
    return {
        "plain": v,
        "b64": b64(v),
        "b64_offset1": b64("x" + v),
        "b64_offset2": b64("xy" + v),
        "urlsafe": b64(v).replace("+", "-").replace("/", "_").rstrip("="),
        "hex": hexed(v),
        "HEX": hexed(v, True),
        "url": urlenc(v),
        "json": json.encode({"v": v}),
        "nested": [{"deep": prefix + v}],
    }
`;

describe('secrets never leave through script runs', () => {
  let t: TestApp;
  let workers: RunningWorkers;
  let auth: Record<string, string>;

  beforeAll(async () => {
    t = await createTestApp({ 'scripts.secret_values': 'plain' }, 'canary');
    workers = await startTestWorkers(t);
    auth = authHeader(await adminToken(t));
  }, 60_000);
  afterAll(async () => {
    await workers?.close();
    await t?.close();
  });

  it('stores the secret and lists it without its value', async () => {
    const set = await t.app.inject({
      method: 'POST',
      url: '/api/secrets/CANARY',
      headers: auth,
      payload: { value: SECRET },
    });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toEqual({ name: 'CANARY', set: true });
    const list = await t.app.inject({ method: 'GET', url: '/api/secrets', headers: auth });
    expect(list.body).not.toContain(SECRET);
  });

  it('accepts the longest valid name and refuses a longer one', async () => {
    const name = `L${'x'.repeat(127)}`;
    const ok = await t.app.inject({
      method: 'POST',
      url: `/api/secrets/${name}`,
      headers: auth,
      payload: { value: 'long-name-value-1' },
    });
    expect(ok.statusCode).toBe(200);
    const tooLong = await t.app.inject({
      method: 'POST',
      url: `/api/secrets/${name}y`,
      headers: auth,
      payload: { value: 'v-123456789' },
    });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().error).toBe('invalid_request');
    expect(
      (await t.app.inject({ method: 'DELETE', url: `/api/secrets/${name}`, headers: auth }))
        .statusCode,
    ).toBe(204);
  });

  it('redacts the value and every encoding from results and logs', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/scripts',
      headers: auth,
      payload: { name: 'leak.star', source },
    });
    expect(created.statusCode).toBe(201);
    const list = await t.app.inject({ method: 'GET', url: '/api/secrets', headers: auth });
    expect(list.json().secrets).toEqual([
      { name: 'CANARY', set: true, last_updated: expect.any(String) },
    ]);
    await t.app.inject({ method: 'POST', url: '/api/scripts/leak.star/approve', headers: auth });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/scripts/leak.star/test',
      headers: auth,
      payload: { args: { prefix: 'p:' } },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.success).toBe(true);
    for (const [key, value] of Object.entries(body.result as Record<string, unknown>)) {
      expect(JSON.stringify(value), key).toContain('[REDACTED:CANARY]');
    }
    expect(body.logs.join('\n')).toContain('[REDACTED:CANARY]');
    const text = res.body;
    const encodings = [
      SECRET,
      Buffer.from(SECRET).toString('base64'),
      Buffer.from(SECRET).toString('base64url'),
      Buffer.from(SECRET).toString('hex'),
      Buffer.from(SECRET).toString('hex').toUpperCase(),
      encodeURIComponent(SECRET),
    ];
    for (const encoded of encodings) expect(text).not.toContain(encoded);
  });

  it('redacts the value from a failing run’s error', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/api/scripts',
      headers: auth,
      payload: {
        name: 'fails.star',
        source: '# @secrets: CANARY\ndef main():\n    fail("boom " + secrets.get("CANARY"))\n',
      },
    });
    await t.app.inject({ method: 'POST', url: '/api/scripts/fails.star/approve', headers: auth });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/scripts/fails.star/test',
      headers: auth,
      payload: { args: {} },
    });
    expect(res.json()).toMatchObject({
      success: false,
      error: expect.stringContaining('[REDACTED:CANARY]'),
    });
    expect(res.body).not.toContain(SECRET);
  });

  it('leaves no plaintext or encoded value in any Redis key', async () => {
    const raw = createRedis({ url: testRedisUrl(), prefix: '' }, 'bullmq');
    const needles = [
      SECRET,
      Buffer.from(SECRET).toString('base64'),
      Buffer.from(SECRET).toString('hex'),
    ];
    try {
      let cursor = '0';
      let scanned = 0;
      do {
        const [next, found] = await raw.scan(cursor, 'MATCH', `${t.prefix}*`, 'COUNT', 500);
        cursor = next;
        for (const key of found) {
          scanned++;
          const type = await raw.type(key);
          let content = '';
          if (type === 'string') content = (await raw.get(key)) ?? '';
          else if (type === 'hash') content = JSON.stringify(await raw.hgetall(key));
          else if (type === 'list') content = JSON.stringify(await raw.lrange(key, 0, -1));
          else if (type === 'set') content = JSON.stringify(await raw.smembers(key));
          else if (type === 'zset') content = JSON.stringify(await raw.zrange(key, 0, -1));
          else if (type === 'stream') content = JSON.stringify(await raw.xrange(key, '-', '+'));
          for (const needle of needles) expect(content, `${key} (${type})`).not.toContain(needle);
        }
      } while (cursor !== '0');
      expect(scanned).toBeGreaterThan(5);
    } finally {
      raw.disconnect();
    }
  });
});
