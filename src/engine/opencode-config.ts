import path from 'node:path';
import type { LoadedConfig } from '../config/load.js';

/** Name of Steward's tool server in the engine; the model sees its tools as `steward_<tool>`. */
export const STEWARD_MCP_NAME = 'steward';

/**
 * OpenCode's own tools. They would let the AI run shell commands and touch files outside
 * Steward's approval flow, so all of them are turned off: the AI acts only through Steward.
 */
export const BUILTIN_TOOLS = [
  'bash',
  'edit',
  'write',
  'read',
  'grep',
  'glob',
  'list',
  'patch',
  'apply_patch',
  'multiedit',
  'webfetch',
  'websearch',
  'codesearch',
  'task',
  'todowrite',
  'todoread',
  'question',
  'skill',
  'lsp',
  'batch',
] as const;

/** Permission keys OpenCode 1.18 knows (its `PermissionConfig`); all denied as a second lock. */
const DENIED_PERMISSIONS = [
  'read',
  'edit',
  'glob',
  'grep',
  'list',
  'bash',
  'task',
  'external_directory',
  'todowrite',
  'question',
  'webfetch',
  'websearch',
  'lsp',
  'skill',
] as const;

/** Compiled CLI of this package; both `src/engine` and `dist/engine` sit two levels below the root. */
export const defaultCliPath = path.resolve(import.meta.dirname, '../../dist/cli/main.js');

/**
 * How the engine reaches Steward's tools: it spawns `steward mcp` on stdio (an engine beside
 * Steward), or calls an API process's `/mcp` with the bearer token (an engine in its own
 * container, which must hold neither Steward's secrets key nor its data).
 */
export type ToolServerLink =
  | {
      transport: 'stdio';
      /** Environment of `steward mcp` (see `stewardMcpEnv`). */
      env: Record<string, string>;
      /** Command that starts the tool server; default `node dist/cli/main.js mcp`. */
      command?: string[];
    }
  | { transport: 'http'; url: string; token: string };

export type McpServerEntry =
  | {
      type: 'local';
      command: string[];
      environment: Record<string, string>;
      enabled: true;
      timeout: number;
    }
  | {
      type: 'remote';
      url: string;
      headers: Record<string, string>;
      oauth: false;
      enabled: true;
      timeout: number;
    };

export interface EngineConfigInput {
  /** `engine.config` of Steward's configuration: providers, model, anything else OpenCode accepts. */
  extra: Record<string, unknown>;
  tools: ToolServerLink;
}

function toolServerEntry(link: ToolServerLink): McpServerEntry {
  if (link.transport === 'http') {
    return {
      type: 'remote',
      url: link.url,
      headers: { authorization: `Bearer ${link.token}` },
      // A refused token must stay an error, not start an OAuth dance with the API.
      oauth: false,
      enabled: true,
      timeout: 10_000,
    };
  }
  return {
    type: 'local',
    command: link.command ?? [process.execPath, defaultCliPath, 'mcp'],
    environment: link.env,
    enabled: true,
    timeout: 10_000,
  };
}

/**
 * The OpenCode configuration of every engine Steward starts, beside it or in a container. Steward's
 * keys win over `engine.config` for everything that keeps the engine locked down (tools,
 * permissions, sharing, updates), so a config file cannot turn the shell back on by accident.
 */
export function buildOpencodeConfig(input: EngineConfigInput): Record<string, unknown> {
  const extra = input.extra;
  const extraMcp = isRecord(extra.mcp) ? extra.mcp : {};
  const steward = toolServerEntry(input.tools);
  return {
    ...extra,
    autoupdate: false,
    share: 'disabled',
    snapshot: false,
    lsp: false,
    formatter: false,
    mcp: { ...extraMcp, [STEWARD_MCP_NAME]: steward },
    tools: Object.fromEntries(BUILTIN_TOOLS.map((name) => [name, false])),
    permission: Object.fromEntries(DENIED_PERMISSIONS.map((name) => [name, 'deny'])),
  };
}

/**
 * What `steward mcp` needs to reach the same Redis, workspace and secrets as this process.
 * Nothing else of Steward's configuration (JWT secret, engine password) is handed to the engine.
 */
export function stewardMcpEnv(config: LoadedConfig, redisUrl: string): Record<string, string> {
  return {
    REDIS_URL: redisUrl,
    STEWARD_REDIS_PREFIX: config.redis.prefix,
    ...(config.redis.sentinels.length > 0
      ? {
          STEWARD_REDIS_SENTINELS: config.redis.sentinels.join(','),
          STEWARD_REDIS_SENTINEL_NAME: config.redis.sentinel_name,
        }
      : {}),
    STEWARD_WORKSPACE: config.paths.workspace,
    STEWARD_DATA_DIR: config.paths.data,
    STEWARD_LOG_LEVEL: config.log.level,
    ...(config.secrets.key ? { STEWARD_SECRETS_KEY: config.secrets.key } : {}),
    ...(config.file ? { STEWARD_CONFIG: path.resolve(config.file) } : {}),
    // `chat_send` needs the provider's settings even when they came from overrides, not a file.
    ...(config.chat.telegram
      ? {
          STEWARD_TELEGRAM_TOKEN_SECRET: config.chat.telegram.token_secret,
          STEWARD_TELEGRAM_ALLOW: config.chat.telegram.allow.join(','),
          STEWARD_TELEGRAM_API_ROOT: config.chat.telegram.api_root,
        }
      : {}),
    // script_exec's review request is sent by `steward mcp` itself.
    ...(config.chat.approvals
      ? {
          STEWARD_CHAT_APPROVALS_PROVIDER: config.chat.approvals.provider,
          STEWARD_CHAT_APPROVALS_CHANNEL: config.chat.approvals.channel_id,
          ...(config.chat.approvals.user_id
            ? { STEWARD_CHAT_APPROVALS_USER: config.chat.approvals.user_id }
            : {}),
          STEWARD_CHAT_APPROVALS_TTL: String(config.chat.approvals.ttl),
        }
      : {}),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
