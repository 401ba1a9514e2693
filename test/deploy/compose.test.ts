import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { envOverrides } from '../../src/config/load.js';

/**
 * No Docker engine runs on CI, so the compose file is checked against what the code expects:
 * commands the CLI has, environment variables the config reads, health checks on real routes.
 */
const root = path.resolve(__dirname, '../..');
const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), {
  merge: true,
}) as {
  services: Record<string, any>;
  volumes: Record<string, unknown>;
  networks: Record<string, any>;
};
const caddyfile = readFileSync(path.join(root, 'deploy/Caddyfile'), 'utf8');
const membersOf = (network: string) =>
  Object.entries(compose.services)
    .filter(([, svc]) => (svc.networks as string[] | undefined)?.includes(network))
    .map(([name]) => name);
const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
const cli = path.join(root, 'dist/cli/main.js');
const knownEnv = new Set(envOverrides.map(([name]) => name));

describe('docker-compose.yml', () => {
  it('runs Redis with AOF on a volume, with a health check', () => {
    const redis = compose.services.redis;
    expect(redis.command.join(' ')).toMatch(/--appendonly yes/);
    expect(redis.volumes).toContain('redis-data:/data');
    expect(redis.healthcheck.test).toContain('ping');
  });

  it('runs two API replicas and a worker, published only through the proxy', () => {
    const api = compose.services.api;
    expect(api.command).toEqual(['api']);
    expect(api.deploy.replicas).toBe(2);
    expect(api.environment.STEWARD_PORT).toBe('8080');
    expect(compose.services.worker.command).toEqual(['worker']);
  });

  it('publishes only the reverse proxy, an official Caddy image serving the Caddyfile', () => {
    const published = Object.entries(compose.services)
      .filter(([, svc]) => svc.ports !== undefined || svc.network_mode !== undefined)
      .map(([name]) => name);
    expect(published).toEqual(['proxy']);
    const proxy = compose.services.proxy;
    expect(proxy.image).toMatch(/^caddy:2[\w.-]*$/);
    expect(proxy.ports).toEqual(expect.arrayContaining(['80:80', '443:443']));
    expect(proxy.volumes).toContain('./deploy/Caddyfile:/etc/caddy/Caddyfile:ro');
    // TLS-ready: the site address is the owner's domain, for which Caddy gets a certificate.
    expect(proxy.environment.STEWARD_SITE).toMatch(/^\$\{STEWARD_SITE:\?/);
    expect(caddyfile).toMatch(/^\{\$STEWARD_SITE\} \{$/m);
    // Every API replica, on the port the API listens on.
    expect(caddyfile).toMatch(/dynamic a \{\s+name api\s+port 8080\s/);
    // Clients' forwarding headers are replaced, never trusted (no trusted_proxies).
    const directives = caddyfile.replace(/^\s*#.*$/gm, '');
    expect(directives).not.toMatch(/trusted_proxies|X-Forwarded-For/i);
  });

  it('trusts forwarded headers only from the proxy network, where only the proxy sends', () => {
    const api = compose.services.api;
    const edge = compose.networks.edge;
    const subnet = edge.ipam.config[0].subnet as string;
    expect(api.environment.STEWARD_TRUST_PROXY).toBe(subnet);
    expect(membersOf('edge')).toEqual(['proxy', 'api']);
    for (const [name, svc] of Object.entries(compose.services)) {
      if (name !== 'api') expect(svc.environment?.STEWARD_TRUST_PROXY, name).toBeUndefined();
    }
  });

  it('requires a Redis password from .env, with no default, and uses it everywhere', () => {
    const redis = compose.services.redis;
    const password = /^\$\{REDIS_PASSWORD:\?[^}]+\}$/;
    const args = redis.command as string[];
    expect(args[args.indexOf('--requirepass') + 1]).toMatch(password);
    expect(redis.environment.REDISCLI_AUTH).toMatch(password);
    for (const name of ['api', 'worker']) {
      const url = new URL(
        compose.services[name].environment.REDIS_URL.replace(/\$\{[^}]+\}/, 'pw'),
      );
      expect(url.password, name).toBe('pw');
      expect(url.host).toBe('redis:6379');
    }
  });

  it('keeps the engine on its own network, beside the API and the worker only', () => {
    expect(compose.services.engine.networks).toEqual(['engine']);
    expect(membersOf('engine')).toEqual(['api', 'worker', 'engine']);
    // The worker listens on nothing: on the engine network only the API answers.
    expect(compose.services.worker.ports).toBeUndefined();
    // Redis sits on an internal network the engine is not on.
    expect(membersOf('backend')).toEqual(['redis', 'api', 'worker']);
    expect(compose.networks.backend.internal).toBe(true);
    for (const [name, svc] of Object.entries(compose.services)) {
      expect(svc.network_mode, name).toBeUndefined();
      expect(svc.networks, name).toBeDefined();
    }
  });

  it('uses only commands the CLI has', () => {
    for (const name of ['api', 'worker', 'engine']) {
      const cmd = compose.services[name].command[0] as string;
      const help = execFileSync(process.execPath, [cli, cmd, '--help'], { encoding: 'utf8' });
      expect(help).toMatch(new RegExp(`steward ${cmd}`));
    }
  });

  it('sets only environment variables the config reads', () => {
    for (const name of ['api', 'worker', 'engine']) {
      for (const key of Object.keys(compose.services[name].environment)) {
        expect(knownEnv.has(key), `${name}: ${key} is read by the config`).toBe(true);
      }
    }
  });

  it('keeps data and workspace on volumes where the config points', () => {
    for (const name of ['api', 'worker']) {
      const svc = compose.services[name];
      expect(svc.volumes).toContain(`steward-data:${svc.environment.STEWARD_DATA_DIR}`);
      expect(svc.volumes).toContain(`workspace:${svc.environment.STEWARD_WORKSPACE}`);
    }
    for (const volume of [
      'redis-data',
      'steward-data',
      'workspace',
      'engine-data',
      'caddy-data',
      'caddy-config',
    ]) {
      expect(compose.volumes).toHaveProperty(volume);
    }
  });

  it('health-checks the API on /healthz', () => {
    expect(compose.services.api.healthcheck.test.join(' ')).toMatch(/\/healthz/);
  });

  it('runs the engine as `steward engine`, holding no Steward secret, data or workspace', () => {
    const engine = compose.services.engine;
    expect(engine.command.slice(0, 1)).toEqual(['engine']);
    const mcpUrl = engine.command[engine.command.indexOf('--mcp-url') + 1];
    const api = compose.services.api;
    expect(mcpUrl).toBe(`http://api:${api.environment.STEWARD_PORT}/mcp`);
    // The API accepts the engine's Host header and shares its token.
    expect(api.environment.STEWARD_MCP_ALLOWED_HOSTS.split(',')).toContain('api');
    expect(api.environment.STEWARD_MCP_TOKEN).toBe(engine.environment.STEWARD_MCP_TOKEN);
    expect(Object.keys(engine.environment).sort()).toEqual([
      'STEWARD_DATA_DIR',
      'STEWARD_ENGINE_PASSWORD',
      'STEWARD_LOG_LEVEL',
      'STEWARD_MCP_TOKEN',
    ]);
    expect(engine.working_dir).toBeUndefined();
    expect(engine.volumes).toEqual(['engine-data:/home/steward/.local/share/opencode']);
    expect(engine.healthcheck.test.join(' ')).toMatch(/global\/health/);
    expect(engine.healthcheck.test.join(' ')).toMatch(/STEWARD_ENGINE_PASSWORD/);
    // The API and worker call it with the password it listens with.
    for (const name of ['api', 'worker']) {
      expect(compose.services[name].environment.STEWARD_ENGINE_PASSWORD).toBe(
        engine.environment.STEWARD_ENGINE_PASSWORD,
      );
    }
  });

  it('builds from stages the Dockerfile defines, running as a non-root user', () => {
    for (const name of ['api', 'worker', 'engine']) {
      const target = compose.services[name].build.target as string;
      expect(dockerfile).toMatch(new RegExp(`^FROM .* AS ${target}$`, 'm'));
    }
    expect(dockerfile).toMatch(/^USER steward$/m);
    expect(dockerfile).toMatch(/dist\/cli\/main\.js/);
  });
});
