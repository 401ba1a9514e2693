import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { chatProviderNames } from '../../contracts/provider-names.js';
import type { Config } from '../../config/schema.js';

export const statusSchema = z.object({
  engine: z.object({ status: z.enum(['connected', 'unavailable']) }),
  chat: z.object({
    /** Chat providers with a section in the configuration (DESIGN "Chat gateway"). */
    providers: z.array(z.string()),
    session_scope: z.enum(['active', 'per_chat']),
  }),
});

export interface StatusRoutesOptions {
  config: Config;
  engineStatus(): 'connected' | 'unavailable';
}

/**
 * `GET /api/status`: what the dashboard shows beside the probes: whether the AI engine answers
 * and which chat providers are configured (DESIGN keeps both out of `/health`).
 */
export const statusRoutes: FastifyPluginAsync<StatusRoutesOptions> = async (app, opts) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get('/status', { schema: { response: { 200: statusSchema } } }, async () => {
    const { chat } = opts.config;
    return {
      engine: { status: opts.engineStatus() },
      chat: {
        providers: chatProviderNames.filter((name) => chat[name] !== undefined),
        session_scope: chat.session_scope,
      },
    };
  });
};
