import { isIP, type AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../auth/module.js';
import { headline } from '../log/logger.js';
import type { Context } from '../runtime/context.js';

/**
 * The address a person on this machine opens: a wildcard listener is reached as `localhost`
 * (what the README says, and a name setup from this machine accepts); the port is the one taken.
 */
export function localUrl(host: string, port: number): string {
  const name = host === '' || host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return `http://${isIP(name) === 6 ? `[${name}]` : name}:${port}/`;
}

/**
 * The setup token exists before the port opens, so setup from another machine can never find
 * none; once setup is done, a token left over is removed. Null when setup is done.
 */
export async function prepareSetup(auth: AuthModule): Promise<string | null> {
  if (!(await auth.service.setupRequired())) {
    await auth.setupToken.discard();
    return null;
  }
  return auth.setupToken.ensure();
}

/**
 * The lines a person starting Steward reads first, marked as headlines: where the UI is and,
 * while no admin exists, how to create one (the token is printed where only they see it).
 */
export function announceListening(
  ctx: Context,
  app: FastifyInstance,
  auth: AuthModule,
  setupToken: string | null,
): void {
  const { port } = app.server.address() as AddressInfo;
  const url = localUrl(ctx.config.server.host, port);
  ctx.log.info(
    headline,
    ctx.config.ui.enabled
      ? `Steward is ready: open ${url} in a browser (the administrator web UI)`
      : `Steward is ready: the API answers at ${url}api (the web UI is off: ui.enabled)`,
  );
  if (setupToken === null) return;
  ctx.log.warn(
    { ...headline, setup_token_file: auth.setupToken.file },
    `first-run setup: create the administrator account at ${url} (or POST /api/setup). From another machine it also needs the setup token, sent as "X-Setup-Token: ${setupToken}" (also in ${auth.setupToken.file})`,
  );
}
