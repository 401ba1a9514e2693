import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { assertSafeLayout } from './layout.js';
import { ConfigError } from '../errors/config-error.js';
import { configSchema, type Config } from './schema.js';

type Kind = 'string' | 'number' | 'boolean' | 'list' | 'boolean or list';

/** Environment variables and the config key each one overrides. */
export const envOverrides: ReadonlyArray<[string, string, Kind]> = [
  ['STEWARD_HOST', 'server.host', 'string'],
  ['STEWARD_PORT', 'server.port', 'number'],
  // `true`/`false`, or the proxies' addresses and networks (comma-separated).
  ['STEWARD_TRUST_PROXY', 'server.trust_proxy', 'boolean or list'],
  ['STEWARD_SHUTDOWN_GRACE', 'server.shutdown_grace', 'number'],
  ['REDIS_URL', 'redis.url', 'string'],
  ['STEWARD_REDIS_PREFIX', 'redis.prefix', 'string'],
  ['STEWARD_REDIS_SENTINELS', 'redis.sentinels', 'list'],
  ['STEWARD_REDIS_SENTINEL_NAME', 'redis.sentinel_name', 'string'],
  ['STEWARD_DATA_DIR', 'data_dir', 'string'],
  ['STEWARD_WORKSPACE', 'workspace', 'string'],
  ['STEWARD_VAULT_PATH', 'vault.path', 'string'],
  ['ADMIN_JWT_SECRET', 'admin.jwt.secret', 'string'],
  ['STEWARD_SECRETS_KEY', 'secrets.key', 'string'],
  ['STEWARD_APPROVAL_KEY', 'secrets.approval_key', 'string'],
  ['STEWARD_LOG_LEVEL', 'log.level', 'string'],
  ['STEWARD_LOG_FORMAT', 'log.format', 'string'],
  ['STEWARD_ENGINE_URL', 'engine.url', 'string'],
  ['STEWARD_ENGINE_PASSWORD', 'engine.password', 'string'],
  ['STEWARD_ENGINE_AUTOSTART', 'engine.autostart', 'boolean'],
  ['STEWARD_MCP_TOKEN', 'mcp.http.token', 'string'],
  // Host names an engine in another container calls the API by (`api` in docker-compose.yml).
  ['STEWARD_MCP_ALLOWED_HOSTS', 'mcp.http.allowed_hosts', 'list'],
  ['STEWARD_CHAT_SESSION_SCOPE', 'chat.session_scope', 'string'],
  ['STEWARD_TELEGRAM_TOKEN_SECRET', 'chat.telegram.token_secret', 'string'],
  ['STEWARD_TELEGRAM_ALLOW', 'chat.telegram.allow', 'list'],
  ['STEWARD_TELEGRAM_API_ROOT', 'chat.telegram.api_root', 'string'],
  ['STEWARD_CHAT_APPROVALS_PROVIDER', 'chat.approvals.provider', 'string'],
  ['STEWARD_CHAT_APPROVALS_CHANNEL', 'chat.approvals.channel_id', 'string'],
  ['STEWARD_CHAT_APPROVALS_USER', 'chat.approvals.user_id', 'string'],
  ['STEWARD_CHAT_APPROVALS_TTL', 'chat.approvals.ttl', 'number'],
];

export interface LoadConfigOptions {
  /** `--config` from the command line; wins over STEWARD_CONFIG. */
  file?: string;
  env?: Record<string, string | undefined>;
  /** Values merged last (tests). */
  overrides?: Record<string, unknown>;
  cwd?: string;
}

export interface LoadedConfig extends Config {
  /** Absolute paths derived once so nothing else resolves them again. */
  paths: { data: string; workspace: string; scripts: string; memory: string; vault?: string };
  /** The YAML file read, if any. */
  file?: string;
}

export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const env = options.env ?? {};
  const cwd = options.cwd ?? process.cwd();
  const file = options.file ?? env.STEWARD_CONFIG ?? defaultFile(cwd);
  const raw: Record<string, unknown> = file ? readYaml(path.resolve(cwd, file)) : {};
  for (const [name, key, kind] of envOverrides) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    setPath(raw, key, kind === 'string' ? value : coerce(name, value, kind));
  }
  for (const [key, value] of Object.entries(options.overrides ?? {})) setPath(raw, key, value);

  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const key = [...issue.path, ...('keys' in issue ? [issue.keys.join(', ')] : [])].join('.');
      // Name the variable only when it supplied the value (a set, non-empty one wins over the file).
      const envName = envOverrides.find(
        ([name, k]) => k === issue.path.join('.') && env[name] !== undefined && env[name] !== '',
      )?.[0];
      return `  ${key || '(root)'}${envName ? ` (from ${envName})` : ''}: ${issue.message}`;
    });
    throw new ConfigError(
      `invalid configuration${file ? ` in ${file}` : ''}:\n${lines.join('\n')}`,
    );
  }
  const config = parsed.data;
  const data = path.resolve(cwd, config.data_dir);
  const workspace = path.resolve(cwd, config.workspace);
  const paths = {
    data,
    workspace,
    scripts: path.join(workspace, 'scripts'),
    memory: path.resolve(workspace, config.memory.dir ?? 'memory'),
    ...(config.vault.path ? { vault: path.resolve(cwd, config.vault.path) } : {}),
  };
  assertSafeLayout(paths);
  return { ...config, paths, ...(file ? { file } : {}) };
}

function defaultFile(cwd: string): string | undefined {
  return existsSync(path.join(cwd, 'steward.yaml')) ? 'steward.yaml' : undefined;
}

function readYaml(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read config file ${file}: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new ConfigError(`config file ${file} is not valid YAML: ${(err as Error).message}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    throw new ConfigError(`config file ${file} must hold a mapping at the top level`);
  }
  return dropNulls(doc as Record<string, unknown>);
}

/** `section:` with only comments under it parses as null; treat that (and `key: ~`) as unset. */
function dropNulls(node: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(node)) {
    if (value === null) delete node[key];
    else if (typeof value === 'object' && !Array.isArray(value)) {
      dropNulls(value as Record<string, unknown>);
    }
  }
  return node;
}

function coerce(name: string, value: string, kind: Exclude<Kind, 'string'>): unknown {
  if (kind === 'boolean or list') {
    return /^(1|true|yes|on|0|false|no|off)$/i.test(value)
      ? coerce(name, value, 'boolean')
      : coerce(name, value, 'list');
  }
  if (kind === 'list')
    return value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  if (kind === 'boolean') {
    if (/^(1|true|yes|on)$/i.test(value)) return true;
    if (/^(0|false|no|off)$/i.test(value)) return false;
    throw new ConfigError(`${name}: expected true or false, got "${value}"`);
  }
  // Leave a non-number as text so the schema reports it against the key it overrides.
  return /^-?\d+$/.test(value) ? Number(value) : value;
}

function setPath(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const keys = dotted.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1] as string] = value;
}
