import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';

/**
 * Where `npm run build` puts the web UI. The same from `src/api/routes` (tests) and from
 * `dist/api/routes` (the built server): three levels up is the package root either way.
 */
export const UI_DIR = fileURLToPath(new URL('../../../dist/ui/', import.meta.url));

/** What Vite writes into index.html where each response's nonce goes (ui/vite.config.ts). */
export const CSP_NONCE_PLACEHOLDER = 'STEWARD_CSP_NONCE';

/**
 * The client routes of the UI (ui/src/app.tsx): each answers index.html, so a reload or a
 * bookmarked link opens the screen. Any other GET outside `/api/` and `/assets/` answers 404 with
 * index.html too, whose router shows the UI's own not-found screen; `/api/*` keeps its JSON 404
 * (app.ts sends unknown API paths to the API's not-found handler before this catch-all).
 */
export const UI_CLIENT_ROUTES = [
  '/',
  '/setup',
  '/login',
  '/scripts',
  '/scripts/*',
  '/secrets',
  '/schedules',
  '/schedules/*',
  '/sessions',
  '/sessions/*',
  '/chat',
  '/activity',
] as const;

/**
 * The UI's own Content-Security-Policy (the API keeps `default-src 'none'`): scripts only from
 * this origin, no eval; styles from this origin plus the `<style>` elements carrying this
 * response's nonce (Mantine writes its CSS variables that way); no inline scripts or style
 * attributes in markup. `connect-src 'self'` covers the chat WebSocket on the same host.
 */
export function uiContentSecurityPolicy(nonce?: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self'${nonce ? ` 'nonce-${nonce}'` : ''}`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export interface UiRoutesOptions {
  /** The built UI; {@link UI_DIR} unless a test points elsewhere. */
  dir?: string;
}

/**
 * The administrator web UI at `/`: hashed assets under `/assets/` cached for a year as immutable
 * (pre-compressed by the build), index.html never cached and stamped with a fresh CSP nonce.
 */
export const uiRoutes: FastifyPluginAsync<UiRoutesOptions> = async (app, opts) => {
  const dir = opts.dir ?? UI_DIR;
  const indexFile = path.join(dir, 'index.html');
  if (!existsSync(indexFile)) {
    app.log.warn(
      { dir },
      'the web UI is not built (run npm run build with dev dependencies); serving the API only',
    );
    return;
  }
  const template = readFileSync(indexFile, 'utf8');
  const nonces = new WeakMap<FastifyReply, string>();

  // After the API's security headers (a root hook, run first): this scope's responses are pages.
  app.addHook('onSend', async (_request, reply, payload) => {
    void reply.header('content-security-policy', uiContentSecurityPolicy(nonces.get(reply)));
    return payload;
  });

  await app.register(fastifyStatic, {
    root: path.join(dir, 'assets'),
    prefix: '/assets/',
    index: false,
    immutable: true,
    maxAge: 365 * 24 * 3600 * 1000,
    preCompressed: true,
    decorateReply: false,
  });

  const page = async (_request: unknown, reply: FastifyReply, status = 200) => {
    const nonce = randomBytes(16).toString('base64');
    nonces.set(reply, nonce);
    return reply
      .code(status)
      .header('cache-control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(template.replaceAll(CSP_NONCE_PLACEHOLDER, nonce));
  };
  // Pages, not API operations: left out of the OpenAPI document.
  for (const url of UI_CLIENT_ROUTES) {
    app.get(url, { schema: { hide: true } }, (request, reply) => page(request, reply));
  }
  // Unknown paths: the page, whose router says there is no such screen, with a 404 status.
  app.get('/*', { schema: { hide: true } }, (request, reply) => page(request, reply, 404));
};
