import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngineClient, engineErrorMessage, parseModelRef } from '../../src/engine/client.js';
import { freePort } from '../../src/store/embedded-redis.js';

const log = pino({ level: 'silent' });

describe('engine client without an engine', () => {
  let silent: Server;
  let failing: Server;
  const url = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  beforeAll(async () => {
    // Accepts connections and never answers: a hung engine.
    silent = createServer(() => {});
    failing = createServer((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ name: 'UnknownError', data: { message: 'database is locked' } }));
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => failing.listen(0, '127.0.0.1', r));
  });

  afterAll(() => {
    silent.closeAllConnections();
    silent.close();
    failing.close();
  });

  it('maps connection refused to engine_unavailable (503)', async () => {
    const client = createEngineClient({
      url: `http://127.0.0.1:${await freePort()}`,
      log,
      requestTimeoutMs: 2000,
    });
    for (const call of [
      () => client.listSessions(),
      () => client.createSession(),
      () => client.providers(),
    ]) {
      await expect(call()).rejects.toMatchObject({
        code: 'engine_unavailable',
        status: 503,
        message: 'AI engine is not reachable: ECONNREFUSED',
      });
    }
  });

  it('maps a hung engine to engine_unavailable after the request timeout', async () => {
    const client = createEngineClient({ url: url(silent), log, requestTimeoutMs: 300 });
    const started = Date.now();
    await expect(client.getSession('ses_x')).rejects.toMatchObject({
      code: 'engine_unavailable',
      message: 'AI engine is not reachable: request timed out',
    });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('maps an engine 500 to engine_unavailable, never 500', async () => {
    const client = createEngineClient({ url: url(failing), log, requestTimeoutMs: 2000 });
    await expect(client.listSessions()).rejects.toMatchObject({
      code: 'engine_unavailable',
      status: 503,
      message: expect.stringContaining('database is locked'),
    });
  });
});

describe('engine client helpers', () => {
  it('parses provider/model references', () => {
    expect(parseModelRef('mock/echo')).toEqual({ provider: 'mock', model: 'echo' });
    expect(parseModelRef('openrouter/meta/llama-3')).toEqual({
      provider: 'openrouter',
      model: 'meta/llama-3',
    });
    expect(parseModelRef('nope')).toBeNull();
    expect(parseModelRef('/x')).toBeNull();
    expect(parseModelRef(undefined)).toBeNull();
  });

  it('reads engine error messages', () => {
    expect(engineErrorMessage({ name: 'APIError', data: { message: 'rate limited' } })).toBe(
      'rate limited',
    );
    expect(engineErrorMessage({ name: 'MessageAbortedError', data: {} })).toBe(
      'MessageAbortedError',
    );
    expect(engineErrorMessage(undefined)).toBe('unknown error');
  });
});
