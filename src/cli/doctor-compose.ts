import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';

/** One thing wrong with a deployment, and what to do about it. */
export interface Finding {
  check: string;
  problem: string;
  fix: string;
}

/** Secrets only Steward's own processes may hold, by their environment variable. */
export const stewardSecrets = ['STEWARD_SECRETS_KEY', 'ADMIN_JWT_SECRET'];

/** What the engine container must not hold: Steward's secrets and the way into Redis. */
const engineForbidden = [...stewardSecrets, 'STEWARD_APPROVAL_KEY', 'REDIS_URL', 'REDIS_PASSWORD'];

interface ComposeService {
  command?: string[] | string;
  image?: string;
  build?: unknown;
  working_dir?: string;
  environment?: Record<string, unknown> | string[];
  env_file?: string | Array<string | { path: string }>;
  volumes?: Array<string | { source?: string; target?: string }>;
  ports?: Array<string | number | { published?: string | number; target?: number }>;
  network_mode?: string;
}

const environmentOf = (svc: ComposeService): Record<string, unknown> =>
  Array.isArray(svc.environment)
    ? Object.fromEntries(svc.environment.map((line) => line.split('=', 2) as [string, string]))
    : (svc.environment ?? {});

const commandOf = (svc: ComposeService): string[] =>
  Array.isArray(svc.command) ? svc.command : (svc.command ?? '').split(' ').filter(Boolean);

/**
 * A compose file as `steward doctor` sees it: every service's networking, then the engine
 * service's lockdown.
 */
export function examineCompose(file: string): Finding[] {
  // Compose files share settings through YAML merge keys (`<<: *steward-env`).
  const doc = parseYaml(readFileSync(file, 'utf8'), { merge: true }) as {
    services?: Record<string, ComposeService>;
  } | null;
  const services = doc?.services ?? {};
  const findings: Finding[] = [];
  const add = (check: string, problem: string, fix: string) =>
    findings.push({ check, problem: `${file}: ${problem}`, fix });

  for (const [name, svc] of Object.entries(services)) {
    if (svc.network_mode === 'host') {
      add(
        'compose network',
        `the ${name} service uses network_mode: host: it reaches every service listening on the host's loopback, and Steward there counts any local relay as this machine`,
        `remove network_mode: host from ${name}; put it on compose networks and publish only the reverse proxy`,
      );
    }
    if (publishesTrustingApi(svc)) {
      const ports = (svc.ports ?? []).map(portText).join(', ');
      add(
        'compose proxy',
        `the ${name} service publishes ${ports} and believes X-Forwarded-For (STEWARD_TRUST_PROXY): a client connecting to that port directly makes up its address, past the login limit`,
        `publish only the reverse proxy and remove ports from ${name} (see docker-compose.yml in the Steward repository), or stop trusting forwarded headers there`,
      );
    }
  }
  const engine = services.engine;
  if (engine) findings.push(...examineEngine(file, engine));
  return findings;
}

/** A Steward HTTP role (`api`, `start`, or the image's default `start`) with published ports. */
function publishesTrustingApi(svc: ComposeService): boolean {
  if (!svc.ports || svc.ports.length === 0) return false;
  const command = commandOf(svc);
  const stewardImage = svc.build !== undefined || /steward/i.test(svc.image ?? '');
  const http = command.length === 0 ? stewardImage : ['api', 'start'].includes(command[0] ?? '');
  const trust = String(environmentOf(svc).STEWARD_TRUST_PROXY ?? '').trim();
  return http && trust !== '' && !/^(0|false|no|off)$/i.test(trust);
}

function portText(port: NonNullable<ComposeService['ports']>[number]): string {
  if (typeof port !== 'object') return String(port);
  return `${port.published ?? ''}:${port.target ?? ''}`;
}

/** The variables an env_file sets (`NAME=value` lines; comments and blanks skipped). */
function envFileNames(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .map((line) => line.trim().replace(/^export\s+/, ''))
    .filter((line) => line !== '' && !line.startsWith('#') && line.includes('='))
    .map((line) => line.slice(0, line.indexOf('=')).trim());
}

/**
 * The engine service of a compose file gets what the supervised engine gets and nothing more:
 * no Steward secrets, no data volume, project config off, a working directory outside the
 * workspace (an `opencode.json` the AI writes there would otherwise be loaded at its next start).
 */
function examineEngine(file: string, engine: ComposeService): Finding[] {
  const findings: Finding[] = [];
  const add = (problem: string, fix: string) =>
    findings.push({ check: 'compose engine', problem: `${file}: ${problem}`, fix });
  const env = environmentOf(engine);
  const envFiles = engine.env_file === undefined ? [] : [engine.env_file].flat();
  for (const entry of envFiles) {
    const relative = typeof entry === 'string' ? entry : entry.path;
    const envFile = path.resolve(path.dirname(file), relative);
    let names: string[];
    try {
      names = envFileNames(envFile);
    } catch {
      add(
        `the engine service reads env_file ${relative}, which could not be read to check it`,
        `remove env_file from the engine service and give it only STEWARD_ENGINE_PASSWORD and STEWARD_MCP_TOKEN under environment`,
      );
      continue;
    }
    const held = engineForbidden.filter((name) => names.includes(name));
    if (held.length > 0) {
      add(
        `the engine service reads env_file ${relative}, which sets ${held.join(', ')}: the AI engine would hold them`,
        `remove env_file from the engine service (or those variables from ${relative}); give it only STEWARD_ENGINE_PASSWORD and STEWARD_MCP_TOKEN under environment`,
      );
    }
  }
  for (const name of engineForbidden) {
    if (name in env)
      add(
        `the engine service has ${name} in its environment`,
        `remove ${name} from the engine service`,
      );
  }
  // `steward engine` sets the lockdown itself, from the same code as `steward start`.
  const command = commandOf(engine);
  const stewardEngine = command[0] === 'engine';
  if (
    !stewardEngine &&
    String(env.OPENCODE_DISABLE_PROJECT_CONFIG ?? '') !== '1' &&
    String(env.OPENCODE_DISABLE_PROJECT_CONFIG ?? '') !== 'true'
  ) {
    add(
      "OPENCODE_DISABLE_PROJECT_CONFIG is not set: an opencode.json written into the workspace is loaded at the engine's next start",
      'run the engine service as `steward engine` (see docker-compose.yml in the Steward repository), or set OPENCODE_DISABLE_PROJECT_CONFIG: "1" on it',
    );
  }
  if (engine.working_dir && /^\/workspace(\/|$)/.test(engine.working_dir)) {
    add(
      `the engine's working directory is ${engine.working_dir}, inside the workspace the AI writes to`,
      'give the engine a working directory outside the workspace',
    );
  }
  for (const volume of engine.volumes ?? []) {
    const [source, target] =
      typeof volume === 'string' ? volume.split(':') : [volume.source, volume.target];
    if (target === '/data' || source === 'steward-data')
      add(
        'the engine service mounts the Steward data volume',
        'remove the /data volume from the engine service',
      );
  }
  return findings;
}
