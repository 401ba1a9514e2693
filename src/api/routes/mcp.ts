import { createHash } from 'node:crypto';
import { sameSecret } from '../same-secret.js';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config/schema.js';
import { inspectMessage } from '../../mcp/message-guard.js';
import type { ToolRateLimiter } from '../../mcp/rate-limit.js';
import { rpcCodes, rpcErrorResponse, type RpcCode } from '../../errors/rpc-error.js';
import { isLoopbackHost, loopbackHosts } from '../../net/loopback.js';
import type { Toolset } from '../../mcp/toolset.js';
import type { RateLimit } from '../../auth/rate-limits.js';
import { byIp, countRequest } from '../plugins/rate-limit.js';

export interface McpHttpOptions {
  mcp: Config['mcp']['http'];
  /** Loaded on first use (see `lazyToolset` in app.ts). */
  toolset: () => Promise<Toolset>;
  limiter: ToolRateLimiter;
  /**
   * Counts refused bearer tokens per client IP (the `/api` limit, `auth.limits.api`): a guesser
   * meets 429 here as at `/api`, on the same counter.
   */
  failures: RateLimit;
}

function hostname(value: string): string {
  try {
    return new URL(`http://${value}`).hostname.toLowerCase();
  } catch {
    return '';
  }
}

/**
 * The MCP SDK's server and transport (with their schemas, some 20 MB) load on the first `/mcp`
 * request, not in every API process at start.
 */
let serverModules:
  | Promise<{
      createMcpServer: typeof import('../../mcp/server.js').createMcpServer;
      StreamableHTTPServerTransport: typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js').StreamableHTTPServerTransport;
    }>
  | undefined;
const mcpServerModules = () =>
  (serverModules ??= Promise.all([
    import('../../mcp/server.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
  ]).then(([server, transport]) => ({
    createMcpServer: server.createMcpServer,
    StreamableHTTPServerTransport: transport.StreamableHTTPServerTransport,
  })));

/**
 * The tool server over Streamable HTTP at `POST /mcp` (stateless: a server per request).
 * Bearer token from `mcp.http.token`; Host and Origin are checked against DNS rebinding.
 */
export const mcpHttpRoutes: FastifyPluginAsync<McpHttpOptions> = async (app, opts) => {
  const token = opts.mcp.token;
  const allowedHosts = new Set([
    ...loopbackHosts,
    ...opts.mcp.allowed_hosts.map((h) => h.toLowerCase()),
  ]);
  const allowedOrigins = new Set(opts.mcp.allowed_origins);

  // Keep the raw text: a parse failure must be answered as JSON-RPC -32700, not as an API error.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    '*',
    { parseAs: 'string', bodyLimit: 4 * 1024 * 1024 },
    (_req, body, done) => done(null, body),
  );

  const rpcReply = (
    reply: FastifyReply,
    status: number,
    code: RpcCode,
    message: string,
    id: string | number | null = null,
  ) =>
    reply
      .code(status)
      .type('application/json')
      .send(rpcErrorResponse(id, code, message));

  const guard = async (request: FastifyRequest, reply: FastifyReply): Promise<boolean> => {
    const host = hostname(request.headers.host ?? '');
    if (!allowedHosts.has(host)) {
      void rpcReply(
        reply,
        403,
        rpcCodes.invalidRequest,
        `Forbidden: host "${host}" is not allowed (mcp.http.allowed_hosts)`,
      );
      return false;
    }
    const origin = request.headers.origin;
    if (
      origin !== undefined &&
      !allowedOrigins.has(origin) &&
      !isLoopbackHost(hostname(new URL(origin, 'http://x').host))
    ) {
      void rpcReply(
        reply,
        403,
        rpcCodes.invalidRequest,
        `Forbidden: origin "${origin}" is not allowed (mcp.http.allowed_origins)`,
      );
      return false;
    }
    const auth = request.headers.authorization ?? '';
    const match = /^Bearer (.+)$/i.exec(auth);
    if (!token || !match || !sameSecret(match[1] as string, token)) {
      // Throws 429 `rate_limited` once this address has failed too often (as at /api, a right
      // token from the same address still passes: it is 32 random characters, not guessable).
      await countRequest(opts.failures, byIp, request, reply);
      void reply.code(401).header('www-authenticate', 'Bearer').send({
        error: 'unauthorized',
        message: 'a valid bearer token (mcp.http.token) is required',
      });
      return false;
    }
    return true;
  };

  app.post('/mcp', async (request, reply) => {
    if (!(await guard(request, reply))) return reply;
    let raw: unknown;
    try {
      raw = JSON.parse(String(request.body ?? ''));
    } catch {
      return rpcReply(reply, 400, rpcCodes.parseError, 'Parse error: invalid JSON');
    }
    const verdict = inspectMessage(raw);
    if (verdict.kind === 'reply') {
      const { id, error } = verdict.response;
      return rpcReply(reply, 400, error.code, error.message, id);
    }
    if (
      verdict.isRequest &&
      !(await opts.limiter.allow(
        `http:${createHash('sha256')
          .update(token ?? '')
          .digest('hex')
          .slice(0, 16)}`,
      ))
    ) {
      const id = (verdict.message as { id: string | number }).id;
      return rpcReply(reply, 429, rpcCodes.rateLimited, opts.limiter.message, id);
    }
    const toolset = await opts.toolset();
    const { createMcpServer, StreamableHTTPServerTransport } = await mcpServerModules();
    const server = createMcpServer(toolset.registry, toolset.makeContext);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, verdict.message);
    return reply;
  });

  // Stateless server: no standalone SSE stream and no sessions to delete.
  const notAllowed = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!(await guard(request, reply))) return reply;
    return reply
      .code(405)
      .header('allow', 'POST')
      .send(rpcErrorResponse(null, rpcCodes.invalidRequest, 'Method not allowed: use POST'));
  };
  app.get('/mcp', notAllowed);
  app.delete('/mcp', notAllowed);
};
