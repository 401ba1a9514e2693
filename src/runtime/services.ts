import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { authGuards, authPlugin } from '../api/plugins/auth.js';
import { authRoutes, meRoutes } from '../api/routes/auth.js';
import { setupRoutes } from '../api/routes/setup.js';
import { scheduleRoutes } from '../api/routes/schedules.js';
import { scriptRoutes } from '../api/routes/scripts.js';
import { createFileMirror } from '../scripts/file-mirror.js';
import { createScriptRunner, type ScriptRunner } from '../scripts/script-runner.js';
import { createScriptService, type ScriptService } from '../scripts/script-service.js';
import { createScriptStore } from '../scripts/script-store.js';
import { openSecretsKey } from '../secrets/key.js';
import { createRedactionService, type RedactionService } from '../secrets/redaction-service.js';
import { createSecretStore, type SecretStore } from '../secrets/store.js';
import { secretRoutes } from '../api/routes/secrets.js';
import { createRedis } from '../store/redis.js';
import { chatRoutes } from '../api/routes/chat-ws.js';
import { modelRoutes } from '../api/routes/models.js';
import { sessionRoutes } from '../api/routes/sessions.js';
import { createEngineModule, type EngineModule } from '../engine/engine-module.js';
import { createAgentRunner } from '../schedules/agent-runner.js';
import { createStreamRedactor } from '../secrets/stream-redactor.js';
import { createScheduleDeps } from '../schedules/schedule-deps.js';
import { createSchedules, type Schedules } from '../schedules/create-schedules.js';
import { createAuthModule } from '../auth/module.js';
import type { AuthService } from '../auth/auth-service.js';
import type { TokenService } from '../auth/tokens.js';
import { keys } from '../store/keys.js';
import { createStatsStore, type StatsStore } from '../store/stats-store.js';
import type { Context } from './context.js';
import type { MetricsSources } from './metrics.js';
import { threadCount } from './threads.js';

/**
 * The wiring hub: builds every store and service once per process from the context and lists
 * the `/api` route plugins. The API, the workers and the MCP server all start from here.
 */
export type RouteRegistration = (api: FastifyInstance) => Promise<void>;

export interface Services {
  stats: StatsStore;
  /** Setup, login, refresh-token sessions. */
  auth: AuthService;
  /** Standalone access-token verifier (the chat WebSocket's `?token=`). */
  tokens: TokenService;
  setupComplete(): Promise<boolean>;
  metrics: MetricsSources;
  /** Route registrations under `/api` that need no access token (setup, login, session). */
  publicRoutes: RouteRegistration[];
  /** Route registrations under `/api` behind `guards`. */
  protectedRoutes: RouteRegistration[];
  /** onRequest hooks of the protected scope: authentication, then the rate limit. */
  guards: onRequestHookHandler[];
  /** Schedule store/service, scheduler sync and run executor (workers start them). */
  schedules: Schedules;
  /** Script store, file mirror and every change to scripts (API, MCP tools, disk import). */
  scripts: ScriptService;
  /** Checked, queued, recorded script runs (API test endpoint, MCP tools, schedules). */
  scriptRunner: ScriptRunner;
  /** The AI engine: client, shared event stream, sessions and models (start() in API roles). */
  engine: EngineModule;
  /** Encrypted secret values (never returned by any endpoint). */
  secrets: SecretStore;
  /** The current redactor of this process, refreshed on every change of the secret set. */
  redaction: RedactionService;
  /** Redacts every secret value and its encodings from text leaving Steward. */
  redact(text: string): string;
  /** What script runs need of the secret store: values of declared secrets, and redaction. */
  scriptSecrets: {
    getSecret(name: string): Promise<string | null>;
    redact(text: string): string;
  };
}

export interface ServicesOptions {
  /** `steward start` supervises `engine.command`; API replicas and workers only connect. */
  superviseEngine?: boolean;
}

export async function createServices(
  ctx: Context,
  options: ServicesOptions = {},
): Promise<Services> {
  const { redis } = ctx;
  const stats = createStatsStore(redis);
  const auth = await createAuthModule(ctx);

  // A missing or wrong key stops start-up here (SecretsKeyError) without touching stored values.
  const { crypto } = await openSecretsKey(ctx.config, redis, ctx.log);
  const secrets = createSecretStore({ redis, crypto, log: ctx.log });
  const redaction = createRedactionService({
    redis,
    crypto,
    log: ctx.log,
    subscriberFactory: () => createRedis(ctx.redisTarget, 'subscriber'),
  });
  await redaction.ready;
  ctx.onClose(() => redaction.close());
  const redact = (text: string) => redaction.redact(text);
  const scriptSecrets: Services['scriptSecrets'] = {
    getSecret: (name) => secrets.get(name),
    redact,
  };
  const scriptStore = createScriptStore({ redis });
  const scriptMirror = createFileMirror(ctx.config.paths.scripts);
  const scripts = createScriptService({ store: scriptStore, mirror: scriptMirror, log: ctx.log });
  const scriptRunner = createScriptRunner({
    store: scriptStore,
    mirror: scriptMirror,
    queues: ctx.queues,
    stats,
    limits: ctx.config.scripts.limits,
    log: ctx.log,
  });

  const engine = await createEngineModule({
    config: ctx.config,
    log: ctx.log,
    redis,
    redisUrl: ctx.redisTarget.url,
    baseEnv: ctx.env,
    supervise: options.superviseEngine ?? false,
  });

  const schedules = createSchedules(
    createScheduleDeps(ctx, {
      runAgent: createAgentRunner({ engine: engine.client, log: ctx.log }),
      scripts: scriptRunner,
      scriptExists: async (name) => (await scriptStore.get(name)) !== null,
      redact,
    }),
  );

  /** Secret names any script declares in `# @secrets:` (listed even before they are set). */
  const declaredNames = async () => {
    const names = new Set<string>();
    for (const record of await scriptStore.list()) {
      for (const name of record.metadata.secrets) names.add(name);
    }
    return [...names];
  };

  const scriptCounts = async () => {
    const names = await redis.smembers(keys.scriptIndex());
    const counts = { total: names.length, approved: 0, pending: 0, rejected: 0 };
    if (names.length === 0) return counts;
    const pipeline = redis.pipeline();
    for (const name of names) pipeline.hget(keys.script(name), 'status');
    for (const [, status] of (await pipeline.exec()) ?? []) {
      if (status === 'approved' || status === 'pending' || status === 'rejected') counts[status]++;
    }
    return counts;
  };

  return {
    stats,
    auth: auth.service,
    tokens: auth.tokens,
    setupComplete: async () => (await redis.exists(keys.adminUser())) === 1,
    metrics: {
      scripts: scriptCounts,
      executions: () => stats.read(),
      secrets: async () => secrets.counts(await declaredNames()),
      threads: threadCount,
    },
    engine,
    publicRoutes: [
      // First: cookies and @fastify/jwt on the /api scope, which the guards below rely on.
      async (api) => {
        await api.register(authPlugin, { auth });
      },
      async (api) => {
        await api.register(setupRoutes, { auth });
        await api.register(authRoutes, { auth });
      },
      // The chat WebSocket verifies its `?token=` itself, before the upgrade.
      async (api) => {
        await api.register(chatRoutes, {
          sessions: engine.sessions,
          client: engine.client,
          hub: engine.hub,
          tokens: auth.tokens,
          createRedactor: () => createStreamRedactor(redaction.current()),
        });
      },
    ],
    protectedRoutes: [
      async (api) => {
        await api.register(meRoutes);
      },
      async (api) => {
        await api.register(scheduleRoutes, { schedules: schedules.service });
      },
      async (api) => {
        await api.register(scriptRoutes, { scripts, runner: scriptRunner, redact });
      },
      async (api) => {
        await api.register(secretRoutes, { secrets, declaredNames, redaction });
      },
      async (api) => {
        await api.register(sessionRoutes, { sessions: engine.sessions });
        await api.register(modelRoutes, { models: engine.models });
      },
    ],
    guards: authGuards(auth),
    schedules,
    scripts,
    scriptRunner,
    secrets,
    redaction,
    redact,
    scriptSecrets,
  };
}
