import type { AppDeps } from '../api/app.js';
import { createChatGateway, type ChatGateway } from '../chat/chat-gateway.js';
import { createChatModule, type ChatModule } from '../chat/chat-module.js';
import { createChatDeliveryProvider } from '../schedules/delivery/chat-provider.js';
import { createStreamRedactor } from '../secrets/stream-redactor.js';
import { createChatApprovalRepository } from '../store/chat-approval-repository.js';
import { createChatDeliveryRepository } from '../store/chat-delivery-repository.js';
import { createChatIdentityRepository } from '../store/chat-identity-repository.js';
import { createChatLeaseRepository } from '../store/chat-lease-repository.js';
import { createChatPairingRepository } from '../store/chat-pairing-repository.js';
import { createChatSessionRepository } from '../store/chat-session-repository.js';
import {
  createChatUpdateClaims,
  createChatUpdateQueue,
  createChatUpdateReader,
} from '../store/chat-update-repository.js';
import { createScriptEvents } from '../scripts/script-events.js';
import { telegramWebhookSecret } from '../chat/telegram-webhook-secret.js';
import { createAdminRepository } from '../store/admin-repository.js';
import { createTokenBucketRepository } from '../store/token-bucket-repository.js';
import { threadCount } from '../api/threads.js';
import { createAuthModule, type AuthModule } from '../auth/module.js';
import { createEngineModule, type EngineModule } from '../engine/engine-module.js';
import type { ToolsetDeps } from '../mcp/toolset.js';
import { createEgress, type Egress } from '../net/egress.js';
import type { Context } from '../runtime/context.js';
import { createAgentRunner } from '../schedules/agent-runner.js';
import { createSchedules, type Schedules } from '../schedules/create-schedules.js';
import { createFileMirror } from '../scripts/file-mirror.js';
import { createRecentChecks, type RecentChecks } from '../scripts/recent-checks.js';
import { createScriptRunner, type ScriptRunner } from '../scripts/script-runner.js';
import { createScriptService, type ScriptService } from '../scripts/script-service.js';
import { openSecretsKey } from '../secrets/key.js';
import {
  commitStagedApprovalKey,
  openApprovalKey,
  stagedApprovalKeyFile,
} from '../secrets/approval-key.js';
import { resignApprovals } from '../scripts/approval-records.js';
import { createApprovalSigner, type ApprovalSigner } from '../scripts/approval-signature.js';
import { createMetaRepository } from '../store/meta-repository.js';
import { migrateStore } from '../store/migrations.js';
import { VERSION } from '../version.js';
import { AppError } from '../errors/catalogue.js';
import { createAuditLog, type AuditLog } from '../runtime/audit-log.js';
import { createAuditRepository } from '../store/audit-repository.js';
import { storeMigrations } from './migrations.js';
import { backupDeps } from './backup.js';
import { backupLines } from '../backup/create-backup.js';
import { createRedactionService, type RedactionService } from '../secrets/redaction-service.js';
import { createSecretService, type SecretService } from '../secrets/secret-service.js';
import { createEnginePreferencesRepository } from '../store/engine-preferences-repository.js';
import { createRedactionSetRepository } from '../store/redaction-set-repository.js';
import { createRedis } from '../store/redis.js';
import { createScriptRepository } from '../store/script-repository.js';
import { createSecretRepository } from '../store/secret-repository.js';
import { createStatsRepository, type StatsRepository } from '../store/stats-repository.js';
import type { ScriptRunWorkerDeps } from '../workers/script-runs/worker.js';

/**
 * The composition root: each role builds what it needs from the context, once per process, and
 * hands every layer only the deps its interface names. `steward mcp` builds the core alone (no
 * JWT secret, engine or schedules); the API and worker roles add theirs on top.
 */

/** What every role shares: secrets and redaction, scripts and their runner, one egress client. */
export interface Core {
  stats: StatsRepository;
  /** Encrypted secret values (never returned by any endpoint). */
  secrets: SecretService;
  /** The current redactor of this process, refreshed on every change of the secret set. */
  redaction: RedactionService;
  /** Redacts every secret value and its encodings from text leaving Steward. */
  redact(text: string): string;
  /** Every change to scripts (API, MCP tools, disk import). */
  scripts: ScriptService;
  /** Signs and checks approvals with the key kept outside Redis. */
  signer: ApprovalSigner;
  /** The deployment's hash-chained audit log. */
  audit: AuditLog;
  /** Checked, queued, recorded script runs (API test endpoint, MCP tools, schedules). */
  scriptRunner: ScriptRunner;
  /** Checks the runner passed a moment ago, which this process's script worker need not repeat. */
  recentChecks: RecentChecks;
  /** Outbound HTTP of this process (tools, script runs, webhooks): one client, one policy. */
  egress: Egress;
  /** Chat providers, who may talk to the bot, and unasked sends (`chat_send`, deliveries). */
  chat: ChatModule;
}

/** Sends per second per chat provider, cluster-wide, and the burst allowed (Telegram takes ~30/s). */
const CHAT_SENDS_PER_SECOND = 5;
const CHAT_SEND_BURST = 30;

/** Refusals that stop a start-up on purpose; each is recorded in the audit log before it does. */
const startupRefusals = new Set([
  'secrets_key_invalid',
  'approval_key_invalid',
  'store_version_unsupported',
]);

export async function buildCore(ctx: Context): Promise<Core> {
  try {
    return await composeCore(ctx);
  } catch (err) {
    if (err instanceof AppError && startupRefusals.has(err.code)) {
      // No redactor yet (the secrets may be what failed): these messages name keys and
      // versions, never a value.
      await createAuditLog({
        repo: createAuditRepository(ctx.redis),
        redact: (text) => text,
        log: ctx.log,
      }).record({
        actor: 'steward',
        channel: 'system',
        action: 'startup.refuse',
        target: ctx.config.paths.data,
        outcome: 'refused',
        details: { error: err.code, message: err.message, release: VERSION },
      });
    }
    throw err;
  }
}

async function composeCore(ctx: Context): Promise<Core> {
  const { redis, config, log } = ctx;
  const stats = createStatsRepository(redis);
  // A missing or wrong key stops start-up here (SecretsKeyError) without touching stored values.
  const secretRepository = createSecretRepository(redis);
  const { crypto } = await openSecretsKey(config, secretRepository, log);
  const secrets = createSecretService({ secrets: secretRepository, crypto, log });
  const redaction = createRedactionService({
    redactionSet: createRedactionSetRepository({
      redis,
      subscriberFactory: () => createRedis(ctx.redisTarget, 'subscriber'),
    }),
    crypto,
    log,
  });
  await redaction.ready;
  ctx.onClose(() => redaction.close());
  const redact = (text: string) => redaction.redact(text);
  const audit = createAuditLog({ repo: createAuditRepository(redis), redact, log });
  const scriptStore = createScriptRepository(redis);
  const signer = await openApprovalSigner(ctx, scriptStore);
  // Before anything reads the store: a newer Steward's data stops start-up here, older data moves on.
  await migrateStore(
    createMetaRepository(redis),
    storeMigrations({ config, scripts: scriptStore, signer, log }),
    { release: VERSION, log },
  );
  const mirror = createFileMirror(config.paths.scripts);
  // Reviews from chat follow every script change; the chat module is built below.
  const scriptEvents = createScriptEvents();
  const recentChecks = createRecentChecks();
  const scripts = createScriptService({
    store: scriptStore,
    mirror,
    log,
    signer,
    trail: audit,
    events: scriptEvents,
    forget: (name) => recentChecks.forget(name),
  });
  const scriptRunner = createScriptRunner({
    store: scriptStore,
    mirror,
    queues: ctx.queues,
    stats,
    limits: config.scripts.limits,
    log,
    recent: recentChecks,
  });
  const egress = createEgress({
    allow: config.egress.allow,
    timeoutMs: config.egress.timeout,
    maxBodyBytes: config.egress.max_body_bytes,
    maxRedirects: config.egress.max_redirects,
  });
  const buckets = createTokenBucketRepository(redis);
  const chat = createChatModule({
    config: config.chat,
    getSecret: (name) => secrets.get(name),
    stores: {
      pairings: createChatPairingRepository(redis),
      identities: createChatIdentityRepository(redis),
      deliveries: createChatDeliveryRepository(redis),
      approvals: createChatApprovalRepository(redis),
      updates: createChatUpdateClaims(redis),
    },
    redact,
    trail: audit,
    takeSend: (provider) => buckets.take('chat', provider, CHAT_SENDS_PER_SECOND, CHAT_SEND_BURST),
    // BLPOP holds its connection while it waits: one of its own.
    openUpdateReader: () =>
      createChatUpdateReader(
        createRedis(ctx.redisTarget, 'store', { enableAutoPipelining: false }),
      ),
    reviews: {
      scripts,
      adminName: async () => (await createAdminRepository(redis).get())?.username ?? 'admin',
      secretEgress: config.scripts.secret_egress,
      events: scriptEvents,
    },
    log,
  });
  return {
    stats,
    secrets,
    redaction,
    redact,
    scripts,
    signer,
    audit,
    scriptRunner,
    recentChecks,
    egress,
    chat,
  };
}

/**
 * The approval key's signer. A key file rotation that stopped before its end (a new key staged
 * beside the file) is finished first: approvals that verify are signed with the new key, which
 * then replaces the file.
 */
async function openApprovalSigner(
  ctx: Context,
  store: ReturnType<typeof createScriptRepository>,
): Promise<ApprovalSigner> {
  const { config, log } = ctx;
  const opened = await openApprovalKey(config, createMetaRepository(ctx.redis), log);
  const [key, staged] = opened.keys;
  if (staged === undefined || opened.origin !== 'file') return createApprovalSigner(opened.keys);
  const report = await resignApprovals(
    store,
    createApprovalSigner(opened.keys),
    createApprovalSigner([staged]),
  );
  await commitStagedApprovalKey(config, 'file');
  log.warn(
    {
      file: stagedApprovalKeyFile(config),
      resigned: report.signed.length,
      old_key: key !== undefined,
    },
    'completed an interrupted approval key rotation',
  );
  return createApprovalSigner([staged]);
}

/** The tools of `steward mcp` and of the API's `/mcp` endpoint. */
export function toolsetDeps(core: Core): ToolsetDeps {
  return {
    redact: core.redact,
    egress: core.egress,
    trail: core.audit,
    scripts: { scripts: core.scripts, runner: core.scriptRunner },
    ...(core.chat.configured.length > 0 ? { chat: core.chat.outbox } : {}),
  };
}

/** What the script-runs worker needs of the core. */
export function scriptWorkerDeps(core: Core): ScriptRunWorkerDeps {
  return {
    store: core.scripts.store,
    signer: core.signer,
    recent: core.recentChecks,
    egress: core.egress,
    getSecret: (name) => core.secrets.get(name),
    redact: core.redact,
    // A count lost to a Redis blip is not worth failing anything for.
    onExpired: () => void core.stats.recordExpired().catch(() => {}),
  };
}

/** The API and worker roles: the engine (supervised only by `steward start`) and schedules. */
export interface ServerParts {
  engine: EngineModule;
  schedules: Schedules;
  /** The chat gateway (started by worker roles), when a chat provider is configured. */
  gateway: ChatGateway | null;
}

export async function buildServerParts(
  ctx: Context,
  core: Core,
  options: { superviseEngine: boolean },
): Promise<ServerParts> {
  const engine = await createEngineModule({
    config: ctx.config,
    log: ctx.log,
    preferences: createEnginePreferencesRepository(ctx.redis),
    redisUrl: ctx.redisTarget.url,
    baseEnv: ctx.env,
    supervise: options.superviseEngine,
  });
  const schedules = createSchedules({
    redis: ctx.redis,
    queues: ctx.queues,
    config: ctx.config,
    log: ctx.log,
    egress: core.egress,
    redact: core.redact,
    trail: core.audit,
    runScript: (request) => core.scriptRunner.run(request),
    // Agent schedules need an engine: configured (engine.url, engine.command) or supervised here.
    ...(engine.configured
      ? {
          runAgent: createAgentRunner({ engine: engine.client, log: ctx.log }),
          engineReachable: async () =>
            (await engine.client.health().catch(() => null))?.healthy === true,
        }
      : {}),
    scriptExists: async (name) => (await core.scripts.store.get(name)) !== null,
    providers: Object.fromEntries(
      core.chat.configured.map((name) => [
        name,
        createChatDeliveryProvider(core.chat.outbox, name),
      ]),
    ),
  });
  const gateway =
    core.chat.configured.length > 0
      ? createChatGateway({
          configured: core.chat.configured,
          build: (name) => core.chat.build(name),
          access: core.chat.access,
          lease: createChatLeaseRepository(ctx.redis),
          chatSessions: createChatSessionRepository(ctx.redis),
          engine: {
            client: engine.client,
            hub: engine.hub,
            sessions: engine.sessions,
            models: engine.models,
          },
          createRedactor: () => createStreamRedactor(core.redaction.current()),
          approvals: core.chat.approvals ?? undefined,
          scope: ctx.config.chat.session_scope,
          log: ctx.log.child({ component: 'chat' }),
        })
      : null;
  return { engine, schedules, gateway };
}

/** Everything `buildApp` registers, from the core, the server parts and authentication. */
export async function buildAppDeps(
  ctx: Context,
  core: Core,
  parts: ServerParts,
  auth?: AuthModule,
): Promise<AppDeps> {
  const scriptStore = core.scripts.store;
  const authModule = auth ?? (await createAuthModule({ ...ctx, trail: core.audit }));

  /** Secret names any script declares in `# @secrets:` (listed even before they are set). */
  const declaredNames = async () => {
    const names = new Set<string>();
    for (const record of await scriptStore.list()) {
      for (const name of record.metadata.secrets) names.add(name);
    }
    return [...names];
  };

  return {
    ctx,
    auth: authModule,
    setupComplete: () => authModule.service.admins.exists(),
    metrics: {
      scripts: () => scriptStore.counts(),
      executions: () => core.stats.read(),
      secrets: async () => core.secrets.counts(await declaredNames()),
      threads: threadCount,
      expiredRuns: () => core.stats.expired(),
    },
    scripts: core.scripts,
    scriptRunner: core.scriptRunner,
    secrets: core.secrets,
    declaredNames,
    redaction: core.redaction,
    schedules: parts.schedules.service,
    engine: parts.engine,
    chat: core.chat.access,
    telegramWebhook: ctx.config.chat.telegram?.webhook_url
      ? telegramWebhook(ctx, core, ctx.config.chat.telegram.token_secret)
      : undefined,
    toolset: lazyToolset(ctx, core),
    audit: core.audit,
    backup: async function* () {
      yield* backupLines(await backupDeps(ctx.config, ctx.redis));
    },
  };
}

/** Webhook mode: the secret Telegram signs with, derived from the stored token, and the queue. */
function telegramWebhook(
  ctx: Context,
  core: Core,
  tokenSecret: string,
): AppDeps['telegramWebhook'] {
  const queue = createChatUpdateQueue(ctx.redis);
  return {
    secret: async () => {
      const token = await core.secrets.get(tokenSecret);
      return token ? telegramWebhookSecret(token) : null;
    },
    push: (update) => queue.push('telegram', update),
  };
}

/**
 * The tools pull in HTML, iCal and git libraries that take seconds to load on a busy machine;
 * the API loads them on the first `/mcp` request instead of at start.
 */
function lazyToolset(ctx: Context, core: Core): AppDeps['toolset'] {
  let loading: ReturnType<AppDeps['toolset']> | undefined;
  return () =>
    (loading ??= import('../mcp/toolset.js').then(({ createToolset }) =>
      createToolset(ctx, toolsetDeps(core)),
    ));
}
