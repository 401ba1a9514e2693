import type { FastifyInstance } from 'fastify';
import { buildApp, type AppDeps } from './app.js';

/** Listens; shutting down is `app.close()`, which lets in-flight requests finish. */
export async function listen(deps: AppDeps): Promise<FastifyInstance> {
  const app = await buildApp(deps);
  const { host, port } = deps.ctx.config.server;
  await app.listen({ host, port });
  return app;
}
