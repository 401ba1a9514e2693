import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { AuditChannel, AuditOutcome } from '../../runtime/audit-entry.js';
import type { AuditLog } from '../../runtime/audit-log.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The audit action a request to this route records with its outcome (`secret.set`). */
    audit?: string;
  }
  interface FastifyRequest {
    /** What the handler adds to its route's audit entry (never a value, token or password). */
    auditDetails?: Record<string, unknown>;
  }
}

/** The web UI marks its requests, so that the log can say a change came through it. */
export const CLIENT_HEADER = 'x-steward-client';

export function channelOf(request: FastifyRequest): AuditChannel {
  return request.headers[CLIENT_HEADER] === 'ui' ? 'ui' : 'api';
}

/** The authenticated administrator, else the client's address. */
export function actorOf(request: FastifyRequest): string {
  const user = (request as { user?: { username?: unknown } }).user;
  return typeof user?.username === 'string' ? user.username : `ip:${request.ip}`;
}

/** Refusals are what the rules said no to; failures, what went wrong or was malformed. */
function outcomeOf(status: number): AuditOutcome {
  if (status < 400) return 'ok';
  return [401, 403, 409, 429].includes(status) ? 'refused' : 'failed';
}

/**
 * Every route that declares `config.audit` records one entry per request, with its outcome,
 * before the answer leaves: a client that reads the log right after a change finds it there.
 * The target is the resource's name or id from the path.
 */
export const auditTrailPlugin = fp<{ trail: Pick<AuditLog, 'record'> }>(
  async (app, { trail }) => {
    app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload) => {
      const action = request.routeOptions.config.audit;
      if (action === undefined) return payload;
      const params = (request.params ?? {}) as Record<string, unknown>;
      const target = [params.name, params.id, params.code].find((v) => typeof v === 'string');
      await trail.record({
        actor: actorOf(request),
        channel: channelOf(request),
        action,
        target: (target as string | undefined) ?? '',
        outcome: outcomeOf(reply.statusCode),
        details: { status: reply.statusCode, ip: request.ip, ...request.auditDetails },
      });
      return payload;
    });
  },
  { name: 'audit-trail' },
);
