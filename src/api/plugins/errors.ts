import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { BadRequestError, ServiceUnavailableError } from '../../errors/request-errors.js';
import { internalErrorAnswer, toHttp } from '../../errors/to-http.js';
import { isStoreUnavailable } from '../../store/redis.js';
import { countError } from './rate-limit.js';
import { storeUnavailableMessage } from './store-availability.js';

/** Route schema validation failures, with the part of the request each one is about. */
function validationError(err: FastifyError): BadRequestError | undefined {
  if (!hasZodFastifySchemaValidationErrors(err)) return undefined;
  const where = err.validationContext ?? 'body';
  const detail = err.validation
    .map((v) => {
      const path = v.instancePath.replace(/^\//, '').replace(/\//g, '.');
      return `${path ? `${where}.${path}` : where}: ${v.message}`;
    })
    .join('; ');
  return new BadRequestError(detail);
}

/**
 * What Fastify's router meets before any route: a URL it cannot decode (`%` alone), or a path
 * value over `maxParamLength`. Without this Fastify answers them itself, in its own body and, for
 * the second, with a 414 no operation documents; for the client both are a bad request.
 */
export function frameworkErrors(err: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const message =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'a path segment is longer than the API accepts'
      : 'the URL is not valid';
  void reply.code(400).send({ error: 'invalid_request', message });
}

/** The 404 of a request no route matches. */
export function noRoute(request: FastifyRequest, reply: FastifyReply): void {
  void reply.code(404).send({
    error: 'not_found',
    message: `no route for ${request.method} ${request.url.split('?')[0]}`,
  });
}

export const errorsPlugin = fp(
  async (app) => {
    app.setNotFoundHandler(noRoute);

    app.setErrorHandler(async (err: FastifyError, request, reply) => {
      // A request that failed while its rate-limit count was on its way (a bad body, say)
      // answers with the count's error when it has one: beyond the limit is heard first.
      let error: unknown = (await countError(request)) ?? validationError(err) ?? err;
      // Redis went away while the request ran (the request hook turns away those that come after).
      if (isStoreUnavailable(error)) {
        request.log.warn({ err: (error as Error).message }, 'request failed: Redis unreachable');
        error = new ServiceUnavailableError(storeUnavailableMessage);
      }
      const answer = toHttp(error);
      if (answer) return reply.code(answer.status).send(answer.body);
      request.log.error({ err }, 'request failed');
      const internal = internalErrorAnswer(request.id);
      return reply.code(internal.status).send(internal.body);
    });
  },
  { name: 'errors' },
);
