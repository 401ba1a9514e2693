import { isIP } from 'node:net';
import { z } from 'zod';
import { chatProviderNames } from '../contracts/provider-names.js';
import { SECRET_NAME_PATTERN } from '../contracts/secret-names.js';

/** A duration such as `15m`, `72h`, `30s`, `500ms`, `2d`, or a number of milliseconds. */
export const durationSchema = z.union([
  z.number().int().nonnegative(),
  z
    .string()
    .regex(/^\d+(ms|s|m|h|d)$/, 'expected a duration such as 500ms, 30s, 15m, 72h or 2d')
    .transform(parseDuration),
]);

export function parseDuration(text: string): number {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text);
  if (!match) throw new Error(`invalid duration: ${text}`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as string];
  return Number(match[1]) * (unit ?? 1);
}

const port = z.coerce.number().int().min(0).max(65535);

/** `10.0.0.2`, `fd00::1`, `172.30.0.0/24`, `fd00::/64`. */
function isAddressOrNetwork(text: string): boolean {
  const [address = '', prefix, ...rest] = text.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}
const strict = <T extends z.ZodRawShape>(shape: T) => z.object(shape).strict();

/** Entries of egress.allow: a host name, IP or CIDR, optionally with `:port`. */
const egressEntry = z.string().min(1);

/**
 * `scripts.limits`: what one script run may use. `RunLimits` (src/queue/script-runs.ts) is this
 * shape, carried unchanged from the config to the script thread.
 */
export const runLimitsSchema = strict({
  steps: z.number().int().positive().default(10_000_000),
  wall_time: durationSchema.default(30_000),
  memory_mb: z.number().int().positive().default(128),
  output_bytes: z
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  http_body_bytes: z
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024),
  http_requests: z.number().int().nonnegative().default(50),
});

export const configSchema = strict({
  server: strict({
    host: z.string().default('0.0.0.0'),
    port: port.default(8080),
    /**
     * Whose X-Forwarded-For to believe: `true` every peer's (only when nothing but a proxy can
     * reach Steward), or the addresses and networks of the proxies; the client is then the last
     * address a trusted peer added, whatever the client put in front of it.
     */
    trust_proxy: z
      .union([
        z.boolean(),
        z
          .array(z.string().refine(isAddressOrNetwork, 'expected an IP address or a CIDR network'))
          .min(1),
      ])
      .default(false),
    body_limit: z
      .number()
      .int()
      .positive()
      .default(1024 * 1024),
    /** ms the API keeps answering (probes 503) after SIGTERM before it closes its listener. */
    shutdown_grace: z.number().int().nonnegative().max(4_000).default(3_000),
  }).prefault({}),
  redis: strict({
    /** Unset: redis://127.0.0.1:6379, or a private redis-server when nothing answers there. */
    url: z.string().optional(),
    prefix: z
      .string()
      .regex(/^[A-Za-z0-9:_.-]*$/, 'letters, digits and : _ . - only')
      .default('steward:'),
    /** auto: start a private redis-server when nothing answers at the default URL. */
    embedded: z.enum(['auto', 'never']).default('auto'),
    /**
     * Redis Sentinel (`host:port` of each sentinel): every connection asks them for the primary
     * and follows a failover. `url` then gives only the password and database, if any.
     */
    sentinels: z.array(z.string().regex(/^[^\s:]+:\d{1,5}$/, 'host:port')).default([]),
    sentinel_name: z.string().min(1).default('mymaster'),
    /**
     * Replicas that must confirm an administration change (Redis WAIT) before the API answers
     * it; 0 answers once the primary has it. With Sentinel, 1 keeps every acknowledged change
     * through a failover.
     */
    wait_replicas: z.number().int().nonnegative().default(0),
    wait_timeout: durationSchema.default(1000),
  }).prefault({}),
  data_dir: z.string().default('./data'),
  workspace: z.string().default('./workspace'),
  memory: strict({ dir: z.string().optional() }).prefault({}),
  vault: strict({
    path: z.string().optional(),
    remote: z.string().optional(),
    branch: z.string().default('main'),
  }).prefault({}),
  log: strict({
    level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /**
     * `auto`: readable lines (time, level, message, fields) when the output is a terminal, JSON
     * lines when it is a pipe or a file; `pretty` or `json` whatever it is.
     */
    format: z.enum(['auto', 'pretty', 'json']).default('auto'),
  }).prefault({}),
  admin: strict({
    jwt: strict({
      access_expiry: durationSchema.default(15 * 60_000),
      refresh_expiry: durationSchema.default(72 * 3_600_000),
      issuer: z.string().min(1).default('steward'),
      secret: z.string().min(32, 'at least 32 characters').optional(),
      /** How long a rotated-out refresh token still works (parallel tabs refreshing at once). */
      refresh_grace: durationSchema.default(30_000),
    }).prefault({}),
    cors: strict({ allowed_origins: z.array(z.string().url()).default([]) }).prefault({}),
    rate_limit: strict({
      login_per_minute: z.number().int().positive().default(5),
      api_per_minute: z.number().int().positive().default(60),
    }).prefault({}),
  }).prefault({}),
  audit: strict({
    /** How long audit entries are kept; older ones are pruned and the rest still verifies. */
    retention: durationSchema.default(365 * 86_400_000),
  }).prefault({}),
  secrets: strict({
    /** base64 of 32 bytes; else `<data_dir>/secrets_key`. */
    key: z.string().optional(),
    /** base64 of 32 bytes: signs approvals (never stored in Redis); else `<data_dir>/approval_key`. */
    approval_key: z.string().optional(),
  }).prefault({}),
  scripts: strict({
    /** Script names (without `.star`) the tool server may run without approval. */
    allowlist: z.array(z.string()).default([]),
    /**
     * Script threads per worker process; 0 means four per CPU, at least 16. Runs waiting on
     * `http` or `time.sleep` keep their thread but give back their compute slot.
     */
    threads: z.number().int().nonnegative().default(0),
    /** Runs computing at once per worker process; 0 means one per CPU. */
    compute_slots: z.number().int().nonnegative().default(0),
    /**
     * Where a secret declared without `->` destinations may be sent: `bound` (nowhere; the
     * default) or `any`. A secret with destinations goes only to them either way.
     */
    secret_egress: z.enum(['bound', 'any']).default('bound'),
    /**
     * What `secrets.get` gives a script: `opaque` (the default) a handle it may combine and send
     * but never read, the host placing the value; `plain` the value itself, for scripts written
     * before handles that read their secrets (flagged by `steward doctor`).
     */
    secret_values: z.enum(['opaque', 'plain']).default('opaque'),
    limits: runLimitsSchema.prefault({}),
  }).prefault({}),
  egress: strict({
    allow: z.array(egressEntry).default([]),
    timeout: durationSchema.default(15_000),
    max_body_bytes: z
      .number()
      .int()
      .positive()
      .default(10 * 1024 * 1024),
    max_redirects: z.number().int().nonnegative().default(5),
  }).prefault({}),
  mcp: strict({
    http: strict({
      enabled: z.boolean().default(true),
      token: z.string().min(16, 'at least 16 characters').optional(),
      allowed_hosts: z.array(z.string()).default([]),
      allowed_origins: z.array(z.string()).default([]),
    }).prefault({}),
    rate_limit: strict({
      per_second: z.number().int().positive().default(10),
      burst: z.number().int().positive().default(20),
    }).prefault({}),
  }).prefault({}),
  engine: strict({
    /** An existing OpenCode server; else `command` is supervised by `steward start`. */
    url: z.string().url().optional(),
    password: z.string().optional(),
    /** Command line of `opencode` (e.g. ["opencode"]); `serve` flags are added by Steward. */
    command: z.array(z.string()).optional(),
    /**
     * With neither `url` nor `command`, `steward start` supervises the OpenCode of the installed
     * `opencode-ai` package (or `opencode` on PATH); false leaves Steward without an engine.
     */
    autostart: z.boolean().default(true),
    port: port.optional(),
    /** Extra OpenCode configuration merged into what Steward writes (providers, model). */
    config: z.record(z.string(), z.unknown()).default({}),
    /** Extra environment for the supervised engine. */
    env: z.record(z.string(), z.string()).default({}),
    start_timeout: durationSchema.default(30_000),
    request_timeout: durationSchema.default(30_000),
  }).prefault({}),
  schedules: strict({
    misfire_window: durationSchema.default(5 * 60_000),
    agent_timeout: durationSchema.default(5 * 60_000),
    concurrency: z.number().int().positive().default(8),
    /** Lease of a run in flight: a worker silent this long is presumed dead and its run ends `error`. */
    lock_ttl: durationSchema.default(30_000),
  }).prefault({}),
  webhooks: strict({
    /** channel_id → URL for output_target.provider = webhook. */
    channels: z.record(z.string(), z.string().url()).default({}),
    retries: z.number().int().nonnegative().default(3),
  }).prefault({}),
  /** The chat gateway (DESIGN "Chat gateway"); a provider is on when its section is present. */
  chat: strict({
    /** `active`: messages go to the active session (SPEC); `per_chat`: one session per chat. */
    session_scope: z.enum(['active', 'per_chat']).default('active'),
    telegram: strict({
      /** Name of the Steward secret holding the bot token (encrypted at rest, redacted). */
      token_secret: z
        .string()
        .regex(SECRET_NAME_PATTERN, 'expected a secret name such as TELEGRAM_TOKEN'),
      /** Telegram user ids allowed to talk to the bot without pairing. */
      allow: z
        .array(z.union([z.number().int(), z.string().regex(/^\d+$/)]).transform(String))
        .default([]),
      /**
       * Group chat ids where the bot answers messages that mention it (and may post); elsewhere
       * it answers private chats only.
       */
      groups: z
        .array(z.union([z.number().int(), z.string().regex(/^-?\d+$/)]).transform(String))
        .default([]),
      /** The Bot API root; egress rules do not apply to it. */
      api_root: z.string().url().default('https://api.telegram.org'),
      /**
       * Webhook mode instead of long polling: the public HTTPS URL of this deployment's
       * `/api/chat/telegram/webhook`. Telegram signs each call with a secret derived from the token.
       */
      webhook_url: z.string().url().optional(),
    }).optional(),
    discord: strict({
      token_secret: z.string().regex(SECRET_NAME_PATTERN, 'expected a secret name'),
      /** Discord user ids allowed to talk to the bot without pairing. */
      allow: z
        .array(
          z
            .union([z.string(), z.number()])
            .transform(String)
            .pipe(z.string().regex(/^\d{17,20}$/, 'expected a Discord user id (a snowflake)')),
        )
        .default([]),
      /** Guild channels where the bot answers mentions and may post. */
      channels: z
        .array(z.string().regex(/^\d{17,20}$/, 'expected a Discord channel id (a snowflake)'))
        .default([]),
      /** The REST root, without the version. */
      api_root: z.string().url().default('https://discord.com/api'),
    }).optional(),
    slack: strict({
      /** Secret names of the bot token (`xoxb-…`) and the app-level token (`xapp-…`, Socket Mode). */
      bot_token_secret: z.string().regex(SECRET_NAME_PATTERN, 'expected a secret name'),
      app_token_secret: z.string().regex(SECRET_NAME_PATTERN, 'expected a secret name'),
      /** Slack user ids (U…) allowed to talk to the bot without pairing. */
      allow: z
        .array(z.string().regex(/^[UW][A-Z0-9]+$/, 'expected a Slack user id such as U0123ABCD'))
        .default([]),
      /** Channels (C…/G…) where the bot answers mentions and may post. */
      channels: z
        .array(z.string().regex(/^[CG][A-Z0-9]+$/, 'expected a Slack channel id'))
        .default([]),
      /** The Web API root, with its trailing slash. */
      api_url: z.string().url().default('https://slack.com/api/'),
    }).optional(),
    /**
     * Script reviews from chat: each script that becomes pending is sent to this chat with its
     * diff and Approve/Reject buttons bound to the hash shown.
     */
    approvals: strict({
      provider: z.enum(chatProviderNames),
      /** The administrator's chat (Telegram: their private chat id, the same as their user id). */
      channel_id: z.string().min(1),
      /** The one user whose taps decide; default the channel id (a private chat's user). */
      user_id: z.string().optional(),
      ttl: durationSchema.default(24 * 3600 * 1000),
      /** The web UI's address as the administrator opens it; a review too long for chat links there. */
      ui_url: z.string().url().optional(),
    }).optional(),
  }).prefault({}),
  calendar: strict({
    feeds: z.array(strict({ name: z.string().min(1), url: z.string().url() })).default([]),
  }).prefault({}),
  github: strict({
    token: z.string().optional(),
    base_url: z.string().url().default('https://api.github.com'),
  }).prefault({}),
  web: strict({
    max_length: z.number().int().positive().default(100_000),
  }).prefault({}),
  /** The administrator web UI (`ui/`, built into `dist/ui`), served at `/` by every API process. */
  ui: strict({
    enabled: z.boolean().default(true),
  }).prefault({}),
});

export type Config = z.infer<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
