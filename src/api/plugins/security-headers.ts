import fp from 'fastify-plugin';

/** The five headers the spec requires on every administration response, set in one place. */
export const securityHeaders: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'x-xss-protection': '1; mode=block',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
};

export const securityHeadersPlugin = fp(
  async (app) => {
    app.addHook('onSend', async (_request, reply, payload) => {
      for (const [name, value] of Object.entries(securityHeaders)) reply.header(name, value);
      return payload;
    });
  },
  { name: 'security-headers' },
);
