import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors/config-error.js';

const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'steward-config-'));

describe('loadConfig', () => {
  it('gives the documented defaults with no file and no environment', () => {
    const config = loadConfig({ cwd: tmp(), env: {} });
    expect(config.server.port).toBe(8080);
    expect(config.admin.jwt.access_expiry).toBe(15 * 60_000);
    expect(config.admin.jwt.refresh_expiry).toBe(72 * 3_600_000);
    expect(config.redis.prefix).toBe('steward:');
    expect(config.redis.url).toBeUndefined();
    expect(config.paths.data).toMatch(/data$/);
    expect(config.paths.scripts).toMatch(/workspace\/scripts$/);
  });

  it('reads YAML and lets the environment override it', () => {
    const dir = tmp();
    writeFileSync(
      path.join(dir, 'steward.yaml'),
      'server:\n  port: 9000\nadmin:\n  jwt:\n    access_expiry: 5m\n',
    );
    const config = loadConfig({ cwd: dir, env: { STEWARD_PORT: '9100' } });
    expect(config.server.port).toBe(9100);
    expect(config.admin.jwt.access_expiry).toBe(5 * 60_000);
  });

  it('reads a comma-separated list from the environment', () => {
    const config = loadConfig({
      cwd: tmp(),
      env: { STEWARD_MCP_ALLOWED_HOSTS: 'api, steward.lan,' },
    });
    expect(config.mcp.http.allowed_hosts).toEqual(['api', 'steward.lan']);
  });

  it("takes server.trust_proxy as true/false or as the proxies' addresses and networks", () => {
    const trust = (value: string) =>
      loadConfig({ cwd: tmp(), env: { STEWARD_TRUST_PROXY: value } }).server.trust_proxy;
    expect(trust('true')).toBe(true);
    expect(trust('off')).toBe(false);
    expect(trust('10.213.47.0/24')).toEqual(['10.213.47.0/24']);
    expect(trust('10.0.0.2, fd00::/64')).toEqual(['10.0.0.2', 'fd00::/64']);
    for (const bad of ['proxy', '10.0.0.0/33', '10.0.0.0/8/8', 'fd00::/129']) {
      expect(() => trust(bad), bad).toThrow(/server\.trust_proxy.*IP address or a CIDR network/s);
    }
  });

  it('names the key of a bad environment value', () => {
    expect(() => loadConfig({ cwd: tmp(), env: { STEWARD_PORT: 'abc' } })).toThrow(
      /server\.port \(from STEWARD_PORT\)/,
    );
  });

  it('refuses unknown keys, naming them', () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'c.yaml'), 'server:\n  prot: 1\n');
    expect(() => loadConfig({ cwd: dir, file: 'c.yaml', env: {} })).toThrow(ConfigError);
    expect(() => loadConfig({ cwd: dir, file: 'c.yaml', env: {} })).toThrow(/server.*prot/);
  });

  it('refuses a bad duration', () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'c.yaml'), 'admin:\n  jwt:\n    access_expiry: soon\n');
    expect(() => loadConfig({ cwd: dir, file: 'c.yaml', env: {} })).toThrow(
      /admin\.jwt\.access_expiry/,
    );
  });
});

describe('steward.example.yaml', () => {
  it('parses and documents every top-level key of the schema', async () => {
    const { readFileSync } = await import('node:fs');
    const { configSchema } = await import('../../src/config/schema.js');
    const file = path.resolve(__dirname, '../../steward.example.yaml');
    const config = loadConfig({ file, env: {}, cwd: tmp() });
    expect(config.server.port).toBe(8080);
    const text = readFileSync(file, 'utf8');
    for (const key of Object.keys(configSchema.shape)) {
      expect(text, `example documents ${key}`).toMatch(new RegExp(`^${key}:`, 'm'));
    }
  });
});
