import swagger, { type SwaggerOptions } from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorCatalogue, type ErrorCode } from '../errors/catalogue.js';
import { VERSION } from '../version.js';

/** `/api` paths that need no bearer token (SPEC "Authentication", rule 1). */
const PUBLIC = new Set([
  '/api/setup/status',
  '/api/setup',
  '/api/auth/login',
  '/api/auth/logout',
  '/api/session',
  '/api/openapi.json',
  // The token travels in `?token=`: an upgrade request cannot carry headers.
  '/api/sessions/{id}/chat',
  // Telegram signs its calls with the webhook secret instead (webhook mode only).
  '/api/chat/telegram/webhook',
]);

const statusText: Record<number, string> = {
  400: 'Invalid request',
  401: 'Not authenticated',
  403: 'Not permitted',
  404: 'Not found',
  409: 'Conflict',
  413: 'Body too large',
  415: 'Body is not JSON',
  429: 'Too many requests',
  500: 'Internal error',
  503: 'Unavailable',
};

/** The error codes Steward answers with `status` (src/errors/catalogue.ts). */
function codesFor(status: number): ErrorCode[] {
  return (Object.entries(errorCatalogue) as Array<[ErrorCode, number]>)
    .filter(([, s]) => s === status)
    .map(([code]) => code);
}

function errorResponse(status: number) {
  return {
    description: statusText[status] ?? 'Error',
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['error', 'message'],
          properties: {
            error: { type: 'string', enum: codesFor(status) },
            message: { type: 'string' },
          },
          // invalid_script adds line and column; others may add fields of their own.
          additionalProperties: true,
        },
      },
    },
  };
}

/**
 * Which error answers an operation can give, from its method, path and inputs. Fastify reads the
 * body of every POST, PUT and DELETE that sends one, whether its route takes a body or not: any
 * of them can answer 400 (not valid JSON), 413 (over `server.body_limit`) and 415 (not JSON).
 */
function errorStatuses(method: string, url: string, schema: Record<string, unknown>): number[] {
  const statuses = new Set([429, 500, 503]);
  const writes = method === 'POST' || method === 'PUT' || method === 'DELETE';
  if (schema.body || schema.params || schema.querystring || writes) statuses.add(400);
  if (!PUBLIC.has(url)) statuses.add(401);
  if (schema.params) statuses.add(404);
  if (writes) {
    statuses.add(403);
    statuses.add(409);
    statuses.add(413);
    statuses.add(415);
  }
  if (url.startsWith('/api/setup')) statuses.add(403);
  if (url === '/api/auth/login' || url === '/api/session') statuses.add(401);
  return [...statuses].sort();
}

const CHAT_WS_PATH = '/api/sessions/{id}/chat';

const chatWebSocket = {
  get: {
    summary: 'Chat WebSocket of a session',
    description:
      'Upgrade to a WebSocket. Client frames: `{type: "message", content}`. Server frames: `{type: "connected", session_id}`, then per reply `{type: "text", content}`… and `{type: "done"}`, or `{type: "error", content}` beginning `Engine error:`. The access token goes in `token` because an upgrade request cannot carry headers.',
    parameters: [
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'token', in: 'query', required: true, schema: { type: 'string' } },
    ],
    security: [],
    responses: {
      '101': { description: 'Switching Protocols: the chat stream' },
      '401': errorResponse(401),
      '404': errorResponse(404),
      '429': errorResponse(429),
      '503': errorResponse(503),
    },
  },
};

/** Steward's paths in OpenAPI form: `/api/scripts/:name` → `/api/scripts/{name}`. */
export function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

/**
 * Answers that are not JSON (a file download) are documented as plain OpenAPI response objects,
 * `{description, content: {type: {schema}}}` with a JSON Schema, which the zod transform cannot
 * read: they are set aside before it runs and put back after.
 */
function plainResponses(schema: unknown): {
  passThrough: Record<string, unknown> | null;
  rest: unknown;
} {
  const response = (schema as { response?: Record<string, unknown> } | undefined)?.response;
  if (!response) return { passThrough: null, rest: schema };
  const plain = Object.entries(response).filter(([, r]) => {
    const content = (r as { content?: Record<string, { schema?: unknown }> }).content;
    return content && Object.values(content).every((c) => !(c.schema instanceof z.ZodType));
  });
  if (plain.length === 0) return { passThrough: null, rest: schema };
  const kept = Object.fromEntries(
    Object.entries(response).filter(([status]) => !plain.some(([p]) => p === status)),
  );
  return {
    passThrough: Object.fromEntries(plain),
    rest: { ...(schema as object), response: kept },
  };
}

const swaggerOptions: SwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: {
      title: 'Steward admin API',
      version: VERSION,
      description:
        'Administration of scripts, secrets, schedules, AI sessions and chat pairings. Generated from the zod schemas the routes validate with. Errors are `{error, message}`.',
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        refreshCookie: { type: 'apiKey', in: 'cookie', name: 'refresh' },
      },
    },
  },
  transform(input) {
    const { passThrough, rest } = plainResponses(input.schema);
    const out = jsonSchemaTransform({ ...input, schema: rest } as typeof input);
    if (passThrough) {
      const schema = (out.schema ?? {}) as Record<string, unknown>;
      const response = (schema.response as Record<string, unknown> | undefined) ?? {};
      out.schema = { ...schema, response: { ...response, ...passThrough } };
    }
    const { url, route } = input;
    if (!url.startsWith('/api/')) {
      // Probes and /mcp: plain answers without a response schema.
      const schema = (out.schema ?? {}) as Record<string, unknown>;
      return { ...out, schema: { response: { 200: { description: 'OK' } }, ...schema } };
    }
    const method = String(Array.isArray(route.method) ? route.method[0] : route.method);
    const schema = (out.schema ?? {}) as Record<string, unknown>;
    const responses = { ...((schema.response as Record<string, unknown> | undefined) ?? {}) };
    for (const status of errorStatuses(method, openApiPath(url), schema)) {
      responses[String(status)] ??= errorResponse(status);
    }
    // A 204 answer (deletes, logout) has no body.
    if (!Object.keys(responses).some((s) => s.startsWith('2'))) {
      responses[method === 'DELETE' || url === '/api/auth/logout' ? '204' : '200'] = {
        description: 'Done',
      };
    }
    const security = PUBLIC.has(openApiPath(url))
      ? url === '/api/session'
        ? [{ refreshCookie: [] }]
        : []
      : [{ bearer: [] }];
    return { ...out, schema: { ...schema, response: responses, security } };
  },
  transformObject(input) {
    const doc = jsonSchemaTransformObject(input) as { paths?: Record<string, unknown> };
    // @fastify/websocket hides its routes from the document; the chat stream is described here.
    doc.paths = { ...doc.paths, [CHAT_WS_PATH]: chatWebSocket };
    return doc as ReturnType<typeof jsonSchemaTransformObject>;
  },
};

/** Collects every route registered after it; `app.swagger()` then gives the document. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, swaggerOptions);
}
