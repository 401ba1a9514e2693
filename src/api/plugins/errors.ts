import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { ZodError } from 'zod';
import { isAppError } from '../../errors/catalogue.js';
import { isStoreUnavailable } from '../../store/redis.js';
import { storeUnavailableMessage } from './store-availability.js';

/** Fastify's own error codes, rendered in the spec's `{error, message}` form. */
const fastifyCodes: Record<string, { error: string; message?: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: {
    error: 'invalid_request',
    message: 'request body is not valid JSON',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    error: 'invalid_request',
    message: 'request body is empty but content-type is application/json',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    error: 'payload_too_large',
    message: 'request body is larger than the limit',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    error: 'invalid_request',
    message: 'unsupported content type; send application/json',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    error: 'invalid_request',
    message: 'content-length does not match the body',
  },
};

export function describeZodIssues(error: ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.join('.') : 'body'}: ${issue.message}`)
    .join('; ');
}

export const errorsPlugin = fp(
  async (app) => {
    app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
      void reply.code(404).send({
        error: 'not_found',
        message: `no route for ${request.method} ${request.url.split('?')[0]}`,
      });
    });

    app.setErrorHandler((err: FastifyError, request, reply) => {
      if (isAppError(err)) {
        return reply
          .code(err.status)
          .send({ error: err.code, message: err.message, ...err.details });
      }
      if (hasZodFastifySchemaValidationErrors(err)) {
        const where = err.validationContext ?? 'body';
        const detail = err.validation
          .map((v) => {
            const path = v.instancePath.replace(/^\//, '').replace(/\//g, '.');
            return `${path ? `${where}.${path}` : where}: ${v.message}`;
          })
          .join('; ');
        return reply.code(400).send({ error: 'invalid_request', message: detail });
      }
      if (err instanceof ZodError) {
        return reply.code(400).send({ error: 'invalid_request', message: describeZodIssues(err) });
      }
      const known = err.code ? fastifyCodes[err.code] : undefined;
      if (known) {
        return reply
          .code(err.statusCode ?? 400)
          .send({ error: known.error, message: known.message ?? err.message });
      }
      // Redis went away while the request ran (the request hook turns away those that come after).
      if (isStoreUnavailable(err)) {
        request.log.warn({ err: err.message }, 'request failed: Redis unreachable');
        return reply
          .code(503)
          .send({ error: 'service_unavailable', message: storeUnavailableMessage });
      }
      const status = err.statusCode ?? 500;
      if (status >= 400 && status < 500) {
        return reply.code(status).send({ error: 'invalid_request', message: err.message });
      }
      // Never show internals of a server error; the log has them, keyed by request id.
      request.log.error({ err }, 'request failed');
      return reply
        .code(500)
        .send({ error: 'internal_error', message: `internal error (request ${request.id})` });
    });
  },
  { name: 'errors' },
);
