import type { FastifyInstance } from 'fastify';
import type { Context } from '../runtime/context.js';
import type { Services } from '../runtime/services.js';
import { buildApp } from './app.js';

/** Listens; shutting down is `app.close()`, which lets in-flight requests finish. */
export async function listen(ctx: Context, services: Services): Promise<FastifyInstance> {
  const app = await buildApp({ ctx, services });
  const { host, port } = ctx.config.server;
  await app.listen({ host, port });
  return app;
}
