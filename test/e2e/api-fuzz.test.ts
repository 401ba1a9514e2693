import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { generate } from 'json-schema-faker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSteward, type Answer, type RunningSteward } from '../support/steward-start.js';

/**
 * The API fuzzed from its own OpenAPI document, against a real `steward start`: schema-valid
 * bodies made by a generator (json-schema-faker) and broken ones, odd path and query values,
 * wrong content types, missing tokens, for every `/api` operation. Every answer must be
 * documented for its operation and match its schema (ajv), no 5xx but the documented 503s, and
 * afterwards an ordinary run of a seeded script still succeeds: after such a fuzz one run in
 * 25 answered 500, because a secret the fuzz stored with a short random value was redacted out
 * of the result's own field names (issue 47).
 *
 * Seeded: FUZZ_SEED picks another sequence (`FUZZ_SEED=123 npx vitest run …`); the suite runs
 * seed 47. Bounded: about 470 requests, at most 120 s.
 */
const seed = Number(process.env.FUZZ_SEED ?? 47);
const perOperation = 10;
const budgetMs = 120_000;

/** mulberry32: a small seeded generator, so that a seed replays the same requests. */
function random(seedValue: number) {
  let a = seedValue >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
  };
}

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: 'path' | 'query';
  schema?: Schema;
}
interface Operation {
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}
type Doc = { paths: Record<string, Record<string, Operation>> };

const seedSource = 'def main():\n    print("hello")\n    return {"n": len(args), "ok": True}\n';

/** Path values a client may send: odd ones, and real ones the fuzz sets up. */
const oddValues = [
  '..%2F..%2Fetc%2Fpasswd',
  '%00',
  '%E2%80%AE.star',
  'x'.repeat(300),
  '%',
  'a%2Fb.star',
  '.star',
  '__proto__',
  'constructor.star',
  encodeURIComponent('😀.star'),
  '%20',
];

/** Bodies that are not what the operation takes. */
function brokenBody(
  rnd: ReturnType<typeof random>,
  valid: unknown,
): { body: string; type: string } {
  const json = 'application/json';
  switch (rnd.int(10)) {
    case 0:
      return { body: '{', type: json };
    case 1:
      return { body: '', type: json };
    case 2:
      return { body: 'name=x&source=y', type: 'application/x-www-form-urlencoded' };
    case 3:
      return { body: 'plain words', type: 'text/plain' };
    case 4:
      return { body: JSON.stringify(rnd.pick([null, 1, 'text', [1, 2], true])), type: json };
    case 5:
      // Nested deeper than any sane body: parsers and validators must not fall over.
      return { body: `${'['.repeat(20_000)}${']'.repeat(20_000)}`, type: json };
    case 6:
      return { body: JSON.stringify({ x: 'y'.repeat(1024 * 1024 + 10) }), type: json };
    default: {
      // The valid body with one field of the wrong type, or one more field.
      if (typeof valid !== 'object' || valid === null || Array.isArray(valid)) {
        return { body: JSON.stringify({ unexpected: true }), type: json };
      }
      const copy: Record<string, unknown> = { ...(valid as Record<string, unknown>) };
      const keys = Object.keys(copy);
      const wrong = rnd.pick([42, 'text', null, [], { nested: { deeper: [1] } }, true, -1.5]);
      if (keys.length > 0 && rnd.next() < 0.8) copy[rnd.pick(keys)] = wrong;
      else copy[`extra_${rnd.int(100)}`] = wrong;
      return { body: JSON.stringify(copy), type: json };
    }
  }
}

/** Bodies for the script test endpoint that stress the run path: huge, deep or odd args. */
function runBody(rnd: ReturnType<typeof random>): unknown {
  switch (rnd.int(5)) {
    case 0:
      return { args: { big: 'z'.repeat(900_000) } };
    case 1: {
      const depth = rnd.pick([100, 3_000, 6_000, 50_000]);
      return `{"args":{"deep":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    }
    case 2:
      return { args: { n: 1 }, function: rnd.pick(['main', 'len', 'args', 'fail', '_x', 'print']) };
    case 3:
      return { args: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i])) };
    default:
      return { args: { __proto__: { polluted: true }, constructor: 1 } };
  }
}

describe('API fuzz from the OpenAPI document', () => {
  let steward: RunningSteward;
  let doc: Doc;
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  (addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
  const validators = new Map<Schema, ValidateFunction>();
  const validate = (schema: Schema, value: unknown) => {
    let fn = validators.get(schema);
    if (!fn) validators.set(schema, (fn = ajv.compile(schema)));
    return fn(value) ? null : ajv.errorsText(fn.errors);
  };

  beforeAll(async () => {
    steward = await startSteward('fuzz', {
      admin: { rate_limit: { api_per_minute: 100_000 } },
      scripts: { limits: { wall_time: 3_000 } },
    });
    const res = await steward.call('GET', '/api/openapi.json');
    doc = JSON.parse(res.text) as Doc;
  });
  afterAll(async () => {
    await steward?.stop();
  });

  it(`answers every request as documented, and runs scripts after (seed ${seed})`, async () => {
    const rnd = random(seed);
    const created = await steward.call('POST', '/api/scripts', {
      body: { name: 'seed.star', source: seedSource },
    });
    expect(created.status, created.text).toBe(201);
    expect((await steward.call('POST', '/api/scripts/seed.star/approve')).status).toBe(200);
    const history = JSON.parse((await steward.call('GET', '/api/scripts/seed.star/history')).text);
    const schedule = await steward.call('POST', '/api/schedules', {
      body: { name: 'fuzzed', cron_expr: '0 0 1 1 *', type: 'script', script_name: 'seed.star' },
    });
    expect(schedule.status, schedule.text).toBe(201);
    const real: Record<string, string[]> = {
      name: ['seed.star', 'missing.star'],
      id: [JSON.parse(schedule.text).id as string, 'no-such-id', 'ses_missing'],
      commit: [history.versions[0].commit as string, '0'.repeat(40)],
      code: ['ABCD2345'],
    };

    const problems: string[] = [];
    const statuses = new Map<number, number>();
    const check = (label: string, op: Operation, res: Answer) => {
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const documented = op.responses[String(res.status)];
      if (res.status >= 500 && res.status !== 503)
        problems.push(`${label}: ${res.status} ${res.text.slice(0, 300)}`);
      if (!documented) {
        problems.push(`${label}: undocumented ${res.status} ${res.text.slice(0, 300)}`);
        return;
      }
      const schema = documented.content?.['application/json']?.schema;
      if (!schema || !res.type.includes('application/json')) return;
      let body: unknown;
      try {
        body = JSON.parse(res.text);
      } catch {
        problems.push(`${label}: ${res.status} says JSON but is not: ${res.text.slice(0, 200)}`);
        return;
      }
      const wrong = validate(schema, body);
      if (wrong)
        problems.push(
          `${label}: ${res.status} body does not match its schema: ${wrong}: ${res.text.slice(0, 300)}`,
        );
    };

    const started = Date.now();
    let sent = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!path.startsWith('/api/') || path === '/api/sessions/{id}/chat') continue;
      for (const [method, op] of Object.entries(ops)) {
        for (let i = 0; i < perOperation && Date.now() - started < budgetMs; i++) {
          const params = op.parameters ?? [];
          const oddPath = rnd.next() < 0.2;
          let url = path;
          for (const p of params.filter((q) => q.in === 'path')) {
            const value = oddPath
              ? rnd.pick(oddValues)
              : rnd.next() < 0.7 && real[p.name]
                ? rnd.pick(real[p.name]!)
                : encodeURIComponent(
                    String(await generate(p.schema ?? { type: 'string' }, { seed: rnd.int(1e9) })),
                  );
            url = url.replace(`{${p.name}}`, value);
          }
          const query = params
            .filter((q) => q.in === 'query' && rnd.next() < 0.5)
            .map(
              (q) =>
                `${q.name}=${encodeURIComponent(rnd.next() < 0.3 ? rnd.pick(oddValues) : String(rnd.int(1000) - 10))}`,
            );
          if (query.length > 0) url += `?${query.join('&')}`;

          const schema = op.requestBody?.content['application/json']?.schema;
          const valid = schema
            ? await generate(schema, { seed: rnd.int(1e9), maxDepth: 4, maxDefaultItems: 3 })
            : undefined;
          let body: unknown;
          let type: string | undefined;
          const roll = rnd.next();
          if (path === '/api/scripts/{name}/test' && roll < 0.4) {
            body = runBody(rnd);
          } else if (roll < 0.6) {
            body = valid;
          } else if (method !== 'get') {
            ({ body, type } = brokenBody(rnd, valid));
          }
          // Public operations get no token of ours: a logout with it would end the fuzz's session.
          const open = op.security?.length === 0;
          const auth =
            rnd.next() < 0.1 || open ? rnd.pick(['', 'Bearer nope', 'Basic YTpi']) : undefined;
          const headers: Record<string, string> = {};
          if (type !== undefined) headers['content-type'] = type;
          if (auth !== undefined) headers.authorization = auth;
          const label = `${method.toUpperCase()} ${url.slice(0, 120)} (#${sent})`;
          const res = await steward.call(method.toUpperCase(), url, {
            ...(body !== undefined && method !== 'get' ? { body } : {}),
            headers,
            auth: auth === undefined,
          });
          sent++;
          check(label, op, res);
        }
      }
    }
    // After all that, an ordinary run of the seeded script (its source and approval restored).
    const current = await steward.call('GET', '/api/scripts/seed.star');
    if (current.status === 404) {
      await steward.call('POST', '/api/scripts', {
        body: { name: 'seed.star', source: seedSource },
      });
    } else {
      await steward.call('PUT', '/api/scripts/seed.star', { body: { source: seedSource } });
    }
    const approve = await steward.call('POST', '/api/scripts/seed.star/approve');
    expect(approve.status, approve.text).toBe(200);
    for (let i = 0; i < 3; i++) {
      const run = await steward.call('POST', '/api/scripts/seed.star/test', {
        body: { args: { a: 1 } },
      });
      expect(run.status, `${run.text}\n${steward.output().slice(-3000)}`).toBe(200);
      const answer = JSON.parse(run.text) as { success: boolean; duration_ms: number };
      expect(answer, run.text).toMatchObject({ success: true });
      expect(Number.isInteger(answer.duration_ms)).toBe(true);
    }
    expect(problems).toEqual([]);
    expect(sent).toBeGreaterThan(300);
    // The figures, for the record of a run with FUZZ_SEED.
    console.log(
      `fuzz seed ${seed}: ${sent} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
  }, 240_000);
});
