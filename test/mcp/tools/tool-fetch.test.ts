import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/errors/tool-error.js';
import { decodeBody, toolFetch } from '../../../src/mcp/tools/tool-fetch.js';
import { startServer, type LocalServer } from '../../net/local-server.js';
import { testConfig, testContext } from './tool-context.js';

let server: LocalServer;

beforeAll(async () => {
  server = await startServer(async (req, res) => {
    if (req.url === '/slow') await new Promise((r) => setTimeout(r, 2_000));
    res.end(`seen ${req.headers['x-test'] ?? ''}`);
  });
});

afterAll(() => server.close());

describe('toolFetch', () => {
  it('sends through egress and returns the response', async () => {
    const res = await toolFetch(testContext(testConfig()), `${server.url}/x`, {
      headers: { 'x-test': 'yes' },
    });
    expect([res.status, res.body.toString()]).toEqual([200, 'seen yes']);
  });

  it('turns an egress refusal into a ToolError carrying its message', async () => {
    const err = await toolFetch(testContext(testConfig()), 'http://10.0.0.1/').catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ToolError);
    expect((err as Error).message).toBe(
      'blocked: 10.0.0.1 is a private address; add it to egress.allow (e.g. "10.0.0.1:80") to permit it',
    );
  });

  it('stops when the call is cancelled, whatever signal the caller passed', async () => {
    const controller = new AbortController();
    const ctx = testContext(testConfig(), controller.signal);
    const started = Date.now();
    setTimeout(() => controller.abort(), 50);
    const unrelated = new AbortController().signal;
    await expect(toolFetch(ctx, `${server.url}/slow`, { signal: unrelated })).rejects.toThrow(
      /cancelled/,
    );
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});

describe('decodeBody', () => {
  const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9]);

  it('decodes with the charset the content type names, quoted or not', () => {
    expect(decodeBody(latin1, 'text/plain; charset=iso-8859-1')).toBe('café');
    expect(decodeBody(latin1, 'text/plain; Charset="ISO-8859-1"')).toBe('café');
    expect(decodeBody(Buffer.from([0x82, 0xa0]), 'text/html;charset=shift_jis')).toBe('あ');
  });

  it('falls back to UTF-8 when no charset or an unknown one is named', () => {
    expect(decodeBody(Buffer.from('café'), undefined)).toBe('café');
    expect(decodeBody(Buffer.from('café'), 'text/plain')).toBe('café');
    expect(decodeBody(Buffer.from('café'), 'text/plain; charset=klingon')).toBe('café');
  });
});
