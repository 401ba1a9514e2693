import type { FastifyInstance } from 'fastify';
import { buildApp, type AppDeps } from './app.js';

/**
 * Listens; shutting down is `app.close()`, which lets in-flight requests finish. `beforeListen`
 * runs once the app is built, just before it takes the port (the standby server hands it over
 * there, so the port is closed for a moment only).
 */
export async function listen(
  deps: AppDeps,
  beforeListen: () => Promise<void> = async () => {},
): Promise<FastifyInstance> {
  const app = await buildApp(deps);
  await app.ready();
  await beforeListen();
  const { host, port } = deps.ctx.config.server;
  await app.listen({ host, port });
  return app;
}
