import { randomUUID } from 'node:crypto';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyPluginAsync,
} from 'fastify';
import websocket from '@fastify/websocket';
import fp from 'fastify-plugin';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { AuthModule } from '../auth/module.js';
import type { EngineModule } from '../engine/engine-module.js';
import { createToolRateLimiter } from '../mcp/rate-limit.js';
import type { Toolset } from '../mcp/toolset.js';
import type { AuditLog } from '../runtime/audit-log.js';
import type { Context } from '../runtime/context.js';
import type { ScheduleService } from '../schedules/schedule-service.js';
import type { ScriptRunner } from '../scripts/script-runner.js';
import type { ScriptService } from '../scripts/script-service.js';
import type { RedactionService } from '../secrets/redaction-service.js';
import type { SecretService } from '../secrets/secret-service.js';
import { createStreamRedactor } from '../secrets/stream-redactor.js';
import type { MetricsSources } from './metrics.js';
import { registerOpenApi } from './openapi.js';
import { auditTrailPlugin } from './plugins/audit-trail.js';
import { authGuards, authPlugin } from './plugins/auth.js';
import { contextPlugin } from './plugins/context.js';
import { corsPlugin } from './plugins/cors.js';
import { errorsPlugin, frameworkErrors, noRoute } from './plugins/errors.js';
import { byIp, rateLimitHook } from './plugins/rate-limit.js';
import { securityHeadersPlugin } from './plugins/security-headers.js';
import { storeAvailabilityPlugin } from './plugins/store-availability.js';
import { auditRoutes } from './routes/audit.js';
import { backupRoutes } from './routes/backup.js';
import { authRoutes, meRoutes } from './routes/auth.js';
import { chatRoutes } from './routes/chat-ws.js';
import { healthRoutes } from './routes/health.js';
import { mcpHttpRoutes } from './routes/mcp.js';
import { replicatedWritesPlugin } from './plugins/replicated-writes.js';
import { modelRoutes } from './routes/models.js';
import { scheduleRoutes } from './routes/schedules.js';
import { scriptRoutes } from './routes/scripts.js';
import { secretRoutes } from './routes/secrets.js';
import { sessionRoutes } from './routes/sessions.js';
import { setupRoutes } from './routes/setup.js';
import { statusRoutes } from './routes/status.js';
import { uiRoutes } from './routes/ui.js';
import {
  chatAdminRoutes,
  telegramWebhookRoutes,
  type TelegramWebhookOptions,
} from './routes/chat.js';
import type { ChatAccess } from '../chat/chat-access.js';

/** What the HTTP application needs; `src/cli` builds it once per process. */
export interface AppDeps {
  ctx: Context;
  auth: AuthModule;
  setupComplete(): Promise<boolean>;
  metrics: MetricsSources;
  scripts: ScriptService;
  scriptRunner: ScriptRunner;
  secrets: SecretService;
  /** Every secret name any script declares in `# @secrets:`. */
  declaredNames(): Promise<string[]>;
  redaction: RedactionService;
  schedules: ScheduleService;
  engine: EngineModule;
  /** Who may talk to the chat bot: pairing requests and approved identities. */
  chat: ChatAccess;
  /** Telegram's webhook calls (webhook mode only). */
  telegramWebhook?: TelegramWebhookOptions | undefined;
  /** The MCP tools, loaded on the first `/mcp` request. */
  toolset(): Promise<Toolset>;
  /** The deployment's audit log. */
  audit: AuditLog;
  /** The lines of a new backup file (`GET /api/backup`). */
  backup(): AsyncIterable<string>;
}

/**
 * The whole HTTP application as one plugin, so tests and `server.ts` build it the same way. Every
 * resource plugin is registered here: a new `/api/things` is one file in `routes/` and one line
 * below, public or behind the guards.
 */
const stewardAppPlugin: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  // After a shutdown signal each response ends its keep-alive connection, so the process is not
  // held open by clients that would otherwise keep sending on it.
  app.addHook('onSend', async (_req, reply) => {
    if (deps.ctx.lifecycle.phase === 'stopping') void reply.header('connection', 'close');
  });
  const { ctx, auth, engine } = deps;
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(errorsPlugin);
  await app.register(securityHeadersPlugin);
  await app.register(corsPlugin, { allowedOrigins: ctx.config.admin.cors.allowed_origins });
  await app.register(contextPlugin, { ctx });
  // Before any route: it records each one as it is registered (GET /api/openapi.json below).
  await registerOpenApi(app);
  // Frames up to 1 MiB reach the chat handler, which answers those over 64 KiB itself.
  await app.register(websocket, { options: { maxPayload: 1024 * 1024 } });

  await app.register(healthRoutes, {
    ctx,
    setupComplete: deps.setupComplete,
    metrics: deps.metrics,
    engineStatus: () => (engine.hub.connected() ? 'connected' : 'unavailable'),
  });

  // The admin web UI at `/`, with its own Content-Security-Policy (its plugin's scope only).
  if (ctx.config.ui.enabled) await app.register(uiRoutes);

  if (ctx.config.mcp.http.enabled) {
    await app.register(mcpHttpRoutes, {
      mcp: ctx.config.mcp.http,
      toolset: deps.toolset,
      limiter: createToolRateLimiter(ctx.config.mcp.rate_limit, ctx.redis),
      failures: auth.limits.api,
    });
  }

  await app.register(
    async (api) => {
      await api.register(storeAvailabilityPlugin);
      await api.register(replicatedWritesPlugin, {
        replicas: ctx.config.redis.wait_replicas,
        timeoutMs: ctx.config.redis.wait_timeout,
      });
      // Cookies and @fastify/jwt on the /api scope, which the guards below rely on.
      await api.register(authPlugin, { auth });
      // Routes with `config.audit` record each request and its outcome in the audit log.
      await api.register(auditTrailPlugin, { trail: deps.audit });
      // Unknown /api paths count against the client's limit too.
      api.setNotFoundHandler({ preHandler: rateLimitHook(auth.limits.api, byIp) }, noRoute);
      // The web UI answers unknown GETs with its not-found screen (routes/ui.ts); an unknown API
      // path is more specific than its catch-all and keeps the API's JSON 404 and rate limit.
      for (const url of ['/', '/*']) {
        api.get(url, { schema: { hide: true } }, (_request, reply) => reply.callNotFound());
      }
      await api.register(setupRoutes, { auth });
      if (deps.telegramWebhook) await api.register(telegramWebhookRoutes, deps.telegramWebhook);
      // The OpenAPI 3.1 document of this API, built from the routes' zod schemas.
      api.get(
        '/openapi.json',
        { onRequest: rateLimitHook(auth.limits.api, byIp), schema: { hide: true } },
        async () => app.swagger(),
      );
      await api.register(authRoutes, { auth });
      // The chat WebSocket verifies its `?token=` itself, before the upgrade.
      await api.register(chatRoutes, {
        sessions: engine.sessions,
        client: engine.client,
        hub: engine.hub,
        issuer: auth.issuer,
        access: auth.access,
        createRedactor: () => createStreamRedactor(deps.redaction.current()),
      });
      // Everything else under /api needs a valid access token: authentication, then the rate limit.
      await api.register(async (secured) => {
        const guards = authGuards(auth);
        for (const hook of guards.onRequest) secured.addHook('onRequest', hook);
        secured.addHook('preHandler', guards.preHandler);
        await secured.register(meRoutes);
        await secured.register(scheduleRoutes, { schedules: deps.schedules });
        await secured.register(scriptRoutes, {
          scripts: deps.scripts,
          runner: deps.scriptRunner,
          redact: (text) => deps.redaction.redact(text),
        });
        await secured.register(secretRoutes, {
          secrets: deps.secrets,
          declaredNames: deps.declaredNames,
          redaction: deps.redaction,
        });
        await secured.register(sessionRoutes, { sessions: engine.sessions });
        await secured.register(modelRoutes, { models: engine.models });
        await secured.register(chatAdminRoutes, { access: deps.chat });
        await secured.register(auditRoutes, { audit: deps.audit });
        await secured.register(backupRoutes, { backup: deps.backup, audit: deps.audit });
        await secured.register(statusRoutes, {
          config: ctx.config,
          engineStatus: () => (engine.hub.connected() ? 'connected' : 'unavailable'),
        });
      });
    },
    { prefix: '/api' },
  );
};

/** Not encapsulated: its decorators (redis, websocket) belong to the root. */
export const stewardApp = fp(stewardAppPlugin, { name: 'steward' });

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps.ctx;
  const app = Fastify({
    loggerInstance: deps.ctx.log as FastifyBaseLogger,
    bodyLimit: config.server.body_limit,
    // Secret names may be 128 characters; Fastify's default of 100 would answer 414.
    routerOptions: { maxParamLength: 256 },
    frameworkErrors,
    trustProxy: config.server.trust_proxy,
    // Per-request lines would carry URLs, and the chat WebSocket's URL carries its token.
    logController: new LogController({ disableRequestLogging: true }),
    // Generated ids; a client-sent id would let callers forge correlation in the logs.
    genReqId: () => randomUUID(),
  });
  await app.register(stewardApp, deps);
  return app;
}
