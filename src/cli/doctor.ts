import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { LoadedConfig } from '../config/load.js';
import { parseAllowEntry } from '../net/allowlist.js';
import { isLoopbackHost } from '../net/loopback.js';
import { JWT_SECRET_FILE } from '../auth/jwt-secret.js';
import { SETUP_TOKEN_FILE } from '../auth/setup-token.js';
import { keyFilePath } from '../secrets/key.js';
import { loadConfig } from '../config/load.js';
import { ConfigError } from '../errors/config-error.js';
import { examineCompose, stewardSecrets, type Finding } from './doctor-compose.js';
import { examineReach } from './doctor-reach.js';
import { createAdminRepository, type AdminRepository } from '../store/admin-repository.js';
import { DEFAULT_REDIS_URL, redisAnswers } from '../store/embedded-redis.js';
import { createRedis, redisTargetOf, durabilityWarning, type Redis } from '../store/redis.js';

export type { Finding };

export interface DoctorInput {
  config: LoadedConfig;
  /** The environment `steward` runs with (the one its roles would inherit). */
  env: Readonly<Record<string, string | undefined>>;
  /** Absent when Redis does not answer: the checks that need it say so. */
  store?: { redis: Redis; admins: Pick<AdminRepository, 'exists'> };
  /** A docker-compose file to check the engine service of, when there is one. */
  composeFile?: string;
}

/** `steward doctor`: every check that can run, most serious first. */
export async function examine(input: DoctorInput): Promise<Finding[]> {
  const { config } = input;
  const findings: Finding[] = [];
  const add = (check: string, problem: string, fix: string) =>
    findings.push({ check, problem, fix });

  const host = config.server.host.replace(/^\[|\]$/g, '');
  if (!isLoopbackHost(host) && !config.server.trust_proxy) {
    add(
      'exposure',
      `Steward listens on ${config.server.host}:${config.server.port} in plain HTTP with no proxy in front (server.trust_proxy is off): passwords and tokens cross the network unencrypted`,
      "put a TLS-terminating reverse proxy in front and set server.trust_proxy to the proxy's address, or listen on 127.0.0.1 (STEWARD_HOST)",
    );
  }

  if (input.store) {
    if (!(await input.store.admins.exists())) {
      add(
        'setup',
        'first-run setup is still open: no administrator exists yet',
        `complete it now from this machine (POST /api/setup), or with the X-Setup-Token from ${path.join(config.paths.data, SETUP_TOKEN_FILE)}`,
      );
    }
    const durability = await durabilityWarning(input.store.redis);
    if (durability) {
      add('redis', durability, 'start Redis with --appendonly yes (and keep its data on a volume)');
    }
  } else {
    add(
      'redis',
      'Redis does not answer, so setup and durability could not be checked',
      'start Redis (or set REDIS_URL) and run steward doctor again',
    );
  }

  const data = config.paths.data;
  if (existsSync(data) && (statSync(data).mode & 0o077) !== 0) {
    add(
      'file modes',
      `the data dir ${data} is open to other users (mode ${modeOf(data)})`,
      `chmod 700 ${data}`,
    );
  }
  for (const file of [
    keyFilePath(config),
    path.join(data, JWT_SECRET_FILE),
    path.join(data, SETUP_TOKEN_FILE),
  ]) {
    if (existsSync(file) && (statSync(file).mode & 0o077) !== 0) {
      add(
        'file modes',
        `${file} is readable by other users (mode ${modeOf(file)})`,
        `chmod 600 ${file}`,
      );
    }
  }

  for (const name of stewardSecrets) {
    if (input.env[name]) {
      add(
        'secrets in the environment',
        `${name} is set in the environment, which every child process inherits (the AI engine, git, redis-server)`,
        `move it to its file in the data dir (mode 600): ${name === 'STEWARD_SECRETS_KEY' ? keyFilePath(config) : path.join(data, JWT_SECRET_FILE)}`,
      );
    }
  }

  const mcpToken = config.mcp.http.token;
  if (config.mcp.http.enabled && mcpToken !== undefined && mcpToken.length < 32) {
    add(
      'mcp token',
      `mcp.http.token is ${mcpToken.length} characters long; a bearer token that short can be guessed offline from a captured hash or brute-forced`,
      'use at least 32 random characters, e.g. `openssl rand -base64 32`',
    );
  }

  if (config.scripts.secret_values === 'plain') {
    add(
      'secret values',
      'scripts.secret_values is plain: scripts read secret values, and only a scan of each request, which a reversed or otherwise transformed value escapes, keeps a value from hosts it is not bound to',
      'set scripts.secret_values: opaque (the default) once scripts that read values use them whole: joined with strings and passed to http, hmac or base64.encode',
    );
  }

  for (const entry of config.egress.allow) {
    const parsed = parseAllowEntry(entry);
    if (parsed.kind !== 'network') continue;
    const widest = parsed.cidr.family === 4 ? 16 : 64;
    if (parsed.cidr.prefix < widest) {
      add(
        'egress',
        `egress.allow entry "${entry}" admits more than a /${widest} network: scripts and tools may reach every address in it, internal services included`,
        'list the hosts or the narrowest networks the scripts need',
      );
    }
  }

  findings.push(...examineReach(config));
  if (input.composeFile) findings.push(...examineCompose(input.composeFile));
  return findings;
}

const modeOf = (file: string) => (statSync(file).mode & 0o777).toString(8).padStart(3, '0');

export function formatFindings(findings: readonly Finding[]): string {
  if (findings.length === 0) return 'steward doctor: no findings\n';
  const lines = findings.map((f, i) => `${i + 1}. [${f.check}] ${f.problem}\n   fix: ${f.fix}`);
  return `steward doctor: ${findings.length} finding(s)\n${lines.join('\n')}\n`;
}

/**
 * `steward doctor [--compose FILE]`: loads the config as the roles would (a refused layout is a
 * finding too), checks the Redis it names when it answers, and a compose file when given or
 * found beside the config. Exit code 1 on any finding.
 */
export async function runDoctor(options: {
  configFile?: string;
  env: Readonly<Record<string, string | undefined>>;
  composeFile?: string;
  cwd?: string;
}): Promise<number> {
  const cwd = options.cwd ?? process.cwd();
  let config: LoadedConfig;
  try {
    config = loadConfig({
      cwd,
      env: options.env,
      ...(options.configFile ? { file: options.configFile } : {}),
    });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stdout.write(
      formatFindings([{ check: 'config', problem: err.message, fix: 'correct the configuration' }]),
    );
    return 1;
  }
  const url = config.redis.url ?? DEFAULT_REDIS_URL;
  const target = redisTargetOf(url, config.redis);
  const redis =
    target.sentinels || (await redisAnswers(url)) ? createRedis(target, 'store') : undefined;
  const compose = options.composeFile ?? path.join(cwd, 'docker-compose.yml');
  try {
    const findings = await examine({
      config,
      env: options.env,
      ...(redis ? { store: { redis, admins: createAdminRepository(redis) } } : {}),
      ...(existsSync(compose) ? { composeFile: compose } : {}),
    });
    process.stdout.write(formatFindings(findings));
    return findings.length === 0 ? 0 : 1;
  } finally {
    redis?.disconnect();
  }
}
