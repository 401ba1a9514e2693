import { describe, expect, it } from 'vitest';
import { configSchema, durationSchema, parseDuration } from '../../src/config/schema.js';

/** The dotted paths of every issue, for compact assertions. */
function issues(input: unknown): string[] {
  const result = configSchema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => i.path.join('.'));
}

describe('parseDuration', () => {
  it('reads every unit', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('15m')).toBe(900_000);
    expect(parseDuration('72h')).toBe(259_200_000);
    expect(parseDuration('2d')).toBe(172_800_000);
    expect(parseDuration('0s')).toBe(0);
  });

  it('refuses anything but digits and one lower-case unit', () => {
    for (const text of ['', '15', '1.5h', '-1s', ' 5m', '5 m', '5M', '5mins', 'm', '1h30m']) {
      expect(() => parseDuration(text), text).toThrow(`invalid duration: ${text}`);
    }
  });
});

describe('durationSchema', () => {
  it('takes a duration text or a whole number of milliseconds', () => {
    expect(durationSchema.parse('15m')).toBe(900_000);
    expect(durationSchema.parse(1234)).toBe(1234);
    expect(durationSchema.parse(0)).toBe(0);
  });

  it('refuses negative or fractional numbers and bad texts, saying what it expects', () => {
    expect(durationSchema.safeParse(-1).success).toBe(false);
    expect(durationSchema.safeParse(1.5).success).toBe(false);
    const bad = durationSchema.safeParse('soon');
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad.error?.issues)).toContain(
      'expected a duration such as 500ms, 30s, 15m, 72h or 2d',
    );
  });
});

describe('configSchema', () => {
  it('fills every section from an empty document', () => {
    const config = configSchema.parse({});
    expect(config.server).toEqual({
      host: '0.0.0.0',
      port: 8080,
      trust_proxy: false,
      body_limit: 1024 * 1024,
      shutdown_grace: 3000,
    });
    expect(config.redis).toEqual({
      prefix: 'steward:',
      embedded: 'auto',
      sentinels: [],
      sentinel_name: 'mymaster',
      wait_replicas: 0,
      wait_timeout: 1000,
    });
    expect(config.admin.jwt).toEqual({
      access_expiry: 900_000,
      refresh_expiry: 259_200_000,
      issuer: 'steward',
      refresh_grace: 30_000,
    });
    expect(config.admin.rate_limit).toEqual({ login_per_minute: 5, api_per_minute: 60 });
    expect(config.scripts.limits).toEqual({
      steps: 10_000_000,
      wall_time: 30_000,
      memory_mb: 128,
      output_bytes: 1024 * 1024,
      http_body_bytes: 10 * 1024 * 1024,
      http_requests: 50,
    });
    expect(config.egress).toEqual({
      allow: [],
      timeout: 15_000,
      max_body_bytes: 10 * 1024 * 1024,
      max_redirects: 5,
    });
    expect(config.mcp).toEqual({
      http: { enabled: true, allowed_hosts: [], allowed_origins: [] },
      rate_limit: { per_second: 10, burst: 20 },
    });
    expect(config.vault.branch).toBe('main');
    expect(config.github.base_url).toBe('https://api.github.com');
    expect(config.schedules.misfire_window).toBe(300_000);
  });

  it('keeps given values next to the defaults of the same section', () => {
    const config = configSchema.parse({ admin: { jwt: { access_expiry: '5m' } } });
    expect(config.admin.jwt.access_expiry).toBe(300_000);
    expect(config.admin.jwt.refresh_expiry).toBe(259_200_000);
    expect(config.admin.cors.allowed_origins).toEqual([]);
  });

  it('refuses unknown keys at every level, so a typo is not silently ignored', () => {
    const unknown = (input: unknown) => {
      const result = configSchema.safeParse(input);
      return result.success ? [] : result.error.issues.map((i) => i.code);
    };
    expect(unknown({ sever: {} })).toEqual(['unrecognized_keys']);
    expect(unknown({ server: { prot: 1 } })).toEqual(['unrecognized_keys']);
    expect(unknown({ admin: { jwt: { expiry: '5m' } } })).toEqual(['unrecognized_keys']);
    expect(
      unknown({ calendar: { feeds: [{ name: 'a', url: 'https://x.test/', color: 1 }] } }),
    ).toEqual(['unrecognized_keys']);
  });

  it('takes a port as a number or numeric text within 0..65535', () => {
    expect(configSchema.parse({ server: { port: '9000' } }).server.port).toBe(9000);
    expect(configSchema.parse({ server: { port: 0 } }).server.port).toBe(0);
    expect(issues({ server: { port: 65536 } })).toEqual(['server.port']);
    expect(issues({ server: { port: 'http' } })).toEqual(['server.port']);
    expect(issues({ engine: { port: -1 } })).toEqual(['engine.port']);
  });

  it('holds credentials to a minimum length', () => {
    expect(issues({ admin: { jwt: { secret: 'x'.repeat(31) } } })).toEqual(['admin.jwt.secret']);
    expect(issues({ admin: { jwt: { secret: 'x'.repeat(32) } } })).toEqual([]);
    expect(issues({ mcp: { http: { token: 'x'.repeat(15) } } })).toEqual(['mcp.http.token']);
    expect(issues({ mcp: { http: { token: 'x'.repeat(16) } } })).toEqual([]);
  });

  it('keeps the Redis prefix to key-safe characters', () => {
    expect(configSchema.parse({ redis: { prefix: 'home:steward.v2_-' } }).redis.prefix).toBe(
      'home:steward.v2_-',
    );
    expect(configSchema.parse({ redis: { prefix: '' } }).redis.prefix).toBe('');
    for (const prefix of ['has space', 'star*', 'new\nline', '{tag}']) {
      expect(issues({ redis: { prefix } }), prefix).toEqual(['redis.prefix']);
    }
  });

  it('needs URLs where a URL is expected', () => {
    expect(issues({ engine: { url: '127.0.0.1 port 4096' } })).toEqual(['engine.url']);
    expect(issues({ github: { base_url: 'api.github.com' } })).toEqual(['github.base_url']);
    expect(issues({ webhooks: { channels: { ops: 'not a url' } } })).toEqual([
      'webhooks.channels.ops',
    ]);
    expect(issues({ admin: { cors: { allowed_origins: ['example.com'] } } })).toEqual([
      'admin.cors.allowed_origins.0',
    ]);
    expect(issues({ calendar: { feeds: [{ name: '', url: 'https://x.test/a.ics' }] } })).toEqual([
      'calendar.feeds.0.name',
    ]);
  });

  it('allows zero where zero means something, and refuses it where it would stall', () => {
    expect(
      issues({
        scripts: { threads: 0, limits: { http_requests: 0 } },
        egress: { max_redirects: 0 },
        webhooks: { retries: 0 },
      }),
    ).toEqual([]);
    expect(issues({ scripts: { limits: { steps: 0 } } })).toEqual(['scripts.limits.steps']);
    expect(issues({ schedules: { concurrency: 0 } })).toEqual(['schedules.concurrency']);
    expect(issues({ mcp: { rate_limit: { per_second: 0 } } })).toEqual([
      'mcp.rate_limit.per_second',
    ]);
  });

  it('accepts only the known log levels and embedded modes', () => {
    expect(configSchema.parse({ log: { level: 'silent' } }).log.level).toBe('silent');
    expect(issues({ log: { level: 'verbose' } })).toEqual(['log.level']);
    expect(issues({ redis: { embedded: 'always' } })).toEqual(['redis.embedded']);
  });

  it('takes free-form engine configuration and string-only engine environment', () => {
    const config = configSchema.parse({
      engine: { config: { model: 'mock/echo', provider: { a: { b: 1 } } }, env: { A: '1' } },
    });
    expect(config.engine.config).toEqual({ model: 'mock/echo', provider: { a: { b: 1 } } });
    expect(issues({ engine: { env: { A: 1 } } })).toEqual(['engine.env.A']);
  });
});
