import fastifyCors from '@fastify/cors';
import fp from 'fastify-plugin';

/**
 * Same-origin by default: a browser needs no CORS headers to call its own origin, so none are
 * sent. Origins listed in `admin.cors.allowed_origins` get them, with credentials (the refresh
 * cookie); any other origin gets a response without CORS headers, which the browser refuses.
 */
export const corsPlugin = fp<{ allowedOrigins: readonly string[] }>(
  async (app, { allowedOrigins }) => {
    // Config holds URLs; an Origin header is scheme://host[:port] with no path or slash.
    const allowed = new Set(allowedOrigins.map((o) => new URL(o).origin));
    await app.register(fastifyCors, {
      // false (rather than a list) turns CORS off for the request: no Access-Control-* headers
      // at all, and a preflight from that origin falls through to 404.
      origin: (origin, cb) =>
        cb(null, origin !== undefined && allowed.has(origin) ? origin : false),
      credentials: true,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
      allowedHeaders: ['Authorization', 'Content-Type'],
      exposedHeaders: [
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'Retry-After',
      ],
      maxAge: 600,
    });
  },
  { name: 'steward-cors' },
);
