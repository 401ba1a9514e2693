import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../../src/errors/catalogue.js';
import { ConfigError } from '../../src/errors/config-error.js';
import { EgressError } from '../../src/errors/egress-errors.js';
import { EngineUnavailableError } from '../../src/errors/engine-errors.js';
import { QueueTimeoutError } from '../../src/errors/queue-errors.js';
import {
  BadRequestError,
  NotFoundError,
  RateLimitedError,
  UnauthorizedError,
} from '../../src/errors/request-errors.js';
import {
  InvalidScriptError,
  ScriptNotFoundError,
  ScriptRefusedError,
} from '../../src/errors/script-errors.js';
import { SecretsKeyError } from '../../src/errors/secrets-errors.js';
import { internalErrorAnswer, toHttp } from '../../src/errors/to-http.js';
import { ToolError } from '../../src/errors/tool-error.js';

describe('toHttp', () => {
  it('renders API errors as {error, message} with their status', () => {
    expect(toHttp(new NotFoundError('schedule s1 not found'))).toEqual({
      status: 404,
      body: { error: 'not_found', message: 'schedule s1 not found' },
    });
    expect(toHttp(new UnauthorizedError())).toEqual({
      status: 401,
      body: { error: 'unauthorized', message: 'missing or invalid authentication' },
    });
    expect(toHttp(new RateLimitedError('too many requests; try again in 3 s'))?.status).toBe(429);
    expect(toHttp(new EngineUnavailableError('AI engine failed: x'))).toEqual({
      status: 503,
      body: { error: 'engine_unavailable', message: 'AI engine failed: x' },
    });
  });

  it('puts syntax positions in the body, and keeps refusal details out of it', () => {
    expect(toHttp(new InvalidScriptError('unexpected )', { line: 2, column: 7 }))).toEqual({
      status: 400,
      body: { error: 'invalid_script', message: 'unexpected )', line: 2, column: 7 },
    });
    expect(toHttp(new ScriptRefusedError('a.star', 'pending'))).toEqual({
      status: 403,
      body: {
        error: 'script_not_approved',
        message:
          'script a.star is pending approval; an administrator must approve it before it can run',
      },
    });
    expect(toHttp(new ScriptRefusedError('a.star', 'rejected'))).toEqual({
      status: 403,
      body: { error: 'script_not_approved', message: 'script a.star was rejected' },
    });
    expect(toHttp(new ScriptRefusedError('a.star', 'modified'))?.status).toBe(409);
    expect(toHttp(new ScriptNotFoundError('a.star'))).toEqual({
      status: 404,
      body: { error: 'script_not_found', message: 'script a.star not found' },
    });
  });

  it('renders the details of a plain AppError, as before', () => {
    expect(toHttp(new AppError('invalid_request', 'bad', { field: 'x' }))).toEqual({
      status: 400,
      body: { error: 'invalid_request', message: 'bad', field: 'x' },
    });
  });

  it('maps zod failures, Fastify client errors and other 4xx errors to their answers', () => {
    const parsed = z.object({ name: z.string() }).safeParse({ name: 1 });
    expect(parsed.success).toBe(false);
    expect(toHttp(parsed.error)).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', message: expect.stringMatching(/^name: /) },
    });
    const tooLarge = Object.assign(new Error('raw'), {
      code: 'FST_ERR_CTP_BODY_TOO_LARGE',
      statusCode: 413,
    });
    expect(toHttp(tooLarge)).toEqual({
      status: 413,
      body: { error: 'payload_too_large', message: 'request body is larger than the limit' },
    });
    const clientError = Object.assign(new Error('bad header'), { statusCode: 431 });
    expect(toHttp(clientError)).toEqual({
      status: 431,
      body: { error: 'invalid_request', message: 'bad header' },
    });
    expect(toHttp(new BadRequestError('x'))?.body.error).toBe('invalid_request');
  });

  it('leaves internal errors and crashes to the caller, whose answer shows no internals', () => {
    for (const err of [
      new Error('boom'),
      new ConfigError('bad config'),
      new SecretsKeyError('wrong key'),
      new QueueTimeoutError(1000),
      new EgressError('blocked', 'blocked: 10.0.0.1 is private'),
      new ToolError('for the AI'),
      Object.assign(new Error('upstream'), { statusCode: 502 }),
      'a string',
    ]) {
      expect(toHttp(err)).toBeUndefined();
    }
    expect(internalErrorAnswer('req-7')).toEqual({
      status: 500,
      body: { error: 'internal_error', message: 'internal error (request req-7)' },
    });
  });
});
