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
import type { Context } from '../runtime/context.js';
import type { Services } from '../runtime/services.js';
import { contextPlugin } from './plugins/context.js';
import { corsPlugin } from './plugins/cors.js';
import { errorsPlugin } from './plugins/errors.js';
import { securityHeadersPlugin } from './plugins/security-headers.js';
import { createToolRateLimiter } from '../mcp/rate-limit.js';
import type { Toolset } from '../mcp/toolset.js';
import { storeAvailabilityPlugin } from './plugins/store-availability.js';
import { healthRoutes } from './routes/health.js';
import { mcpHttpRoutes } from './routes/mcp.js';

export interface AppOptions {
  ctx: Context;
  services: Services;
}

/** The whole HTTP application as one plugin, so tests and `server.ts` build it the same way. */
const stewardAppPlugin: FastifyPluginAsync<AppOptions> = async (app, { ctx, services }) => {
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(errorsPlugin);
  await app.register(securityHeadersPlugin);
  await app.register(corsPlugin, { allowedOrigins: ctx.config.admin.cors.allowed_origins });
  await app.register(contextPlugin, { ctx });
  // Frames up to 1 MiB reach the chat handler, which answers those over 64 KiB itself.
  await app.register(websocket, { options: { maxPayload: 1024 * 1024 } });

  await app.register(healthRoutes, {
    ctx,
    setupComplete: services.setupComplete,
    metrics: services.metrics,
    engineStatus: () => (services.engine.hub.connected() ? 'connected' : 'unavailable'),
  });

  if (ctx.config.mcp.http.enabled) {
    await app.register(mcpHttpRoutes, {
      mcp: ctx.config.mcp.http,
      toolset: lazyToolset(ctx, services),
      limiter: createToolRateLimiter(ctx.config.mcp.rate_limit, ctx.redis),
    });
  }

  await app.register(
    async (api) => {
      await api.register(storeAvailabilityPlugin);
      for (const route of services.publicRoutes) await route(api);
      // Everything else under /api needs a valid access token; the default guard refuses all.
      await api.register(async (secured) => {
        for (const hook of services.guards) secured.addHook('onRequest', hook);
        for (const route of services.protectedRoutes) await route(secured);
      });
    },
    { prefix: '/api' },
  );
};

/** Not encapsulated: its decorators (ctx, redis, queues, websocket) belong to the root. */
export const stewardApp = fp(stewardAppPlugin, { name: 'steward' });

/**
 * The tools pull in HTML, iCal and git libraries that take seconds to load on a busy machine;
 * the API loads them on the first `/mcp` request instead of at start.
 */
function lazyToolset(ctx: Context, services: Services): () => Promise<Toolset> {
  let loading: Promise<Toolset> | undefined;
  return () =>
    (loading ??= import('../mcp/toolset.js').then(({ createToolset, toolsetDeps }) =>
      createToolset(ctx, toolsetDeps(services)),
    ));
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config } = options.ctx;
  const app = Fastify({
    loggerInstance: options.ctx.log as FastifyBaseLogger,
    bodyLimit: config.server.body_limit,
    // Secret names may be 128 characters; Fastify's default of 100 would answer 414.
    routerOptions: { maxParamLength: 256 },
    trustProxy: config.server.trust_proxy,
    // Per-request lines would carry URLs, and the chat WebSocket's URL carries its token.
    logController: new LogController({ disableRequestLogging: true }),
    // Generated ids; a client-sent id would let callers forge correlation in the logs.
    genReqId: () => randomUUID(),
  });
  await app.register(stewardApp, options);
  return app;
}
