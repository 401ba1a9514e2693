import { get, type IncomingMessage } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressError } from '../../src/errors/egress-errors.js';
import { readBody } from '../../src/net/read-body.js';
import { startServer, type LocalServer } from './local-server.js';

const text = 'the quick brown fox jumps over the lazy dog. '.repeat(20); // 900 bytes

let server: LocalServer;

beforeAll(async () => {
  server = await startServer((req, res) => {
    const send = (encoding: string, body: Buffer) => {
      res.setHeader('content-encoding', encoding);
      res.end(body);
    };
    switch (req.url) {
      case '/plain':
        return res.end(text);
      case '/exact':
        return res.end(Buffer.alloc(100, 'x'));
      case '/gzip':
        return send('gzip', gzipSync(text));
      case '/x-gzip':
        return send('x-gzip', gzipSync(text));
      case '/GZIP':
        return send('GZIP', gzipSync(text));
      case '/deflate':
        return send('deflate', deflateSync(text));
      case '/br':
        return send('br', brotliCompressSync(text));
      case '/unknown-encoding':
        return send('zstd', Buffer.from('opaque bytes'));
      case '/corrupt-gzip':
        return send('gzip', Buffer.from('this is not gzip at all'));
      case '/bomb':
        return send('gzip', gzipSync(Buffer.alloc(2_000_000)));
      case '/declared-too-large':
        // Says it is large and then never finishes: the limit must not wait for the body.
        res.setHeader('content-length', '5000');
        res.write('a');
        return;
      case '/chunked-too-large':
        for (let i = 0; i < 20; i++) res.write(Buffer.alloc(100, 'b'));
        return res.end();
      case '/cut':
        res.setHeader('content-length', '1000');
        res.write('only part of it');
        setImmediate(() => res.socket?.destroy());
        return;
      default:
        res.statusCode = 404;
        res.end();
    }
  });
});

afterAll(() => server.close());

function open(path: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    get(`${server.url}${path}`, { headers: { 'accept-encoding': 'identity' } }, resolve).on(
      'error',
      reject,
    );
  });
}

async function read(path: string, maxBytes = 10_000): Promise<string> {
  return (await readBody(await open(path), maxBytes, `${server.url}${path}`)).toString('utf8');
}

async function failure(path: string, maxBytes = 10_000): Promise<EgressError> {
  const err = await read(path, maxBytes).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, path).toBeInstanceOf(EgressError);
  return err as EgressError;
}

describe('readBody', () => {
  it('collects a plain body', async () => {
    expect(await read('/plain')).toBe(text);
  });

  it('accepts a body of exactly the limit', async () => {
    expect(await read('/exact', 100)).toHaveLength(100);
    expect((await failure('/exact', 99)).code).toBe('too_large');
  });

  it('decompresses gzip, deflate and brotli, whatever the case of the header', async () => {
    for (const path of ['/gzip', '/x-gzip', '/GZIP', '/deflate', '/br']) {
      expect(await read(path), path).toBe(text);
    }
  });

  it('counts the decompressed size, so a small gzip bomb is stopped', async () => {
    const err = await failure('/bomb', 100_000);
    expect(err.code).toBe('too_large');
    expect(err.message).toBe(
      `response from ${server.url}/bomb is larger than the limit of 100000 bytes`,
    );
  });

  it('refuses at once a body whose declared length is over the limit', async () => {
    const started = Date.now();
    const err = await failure('/declared-too-large', 1_000);
    expect(err.code).toBe('too_large');
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('stops a chunked body as soon as it passes the limit', async () => {
    expect((await failure('/chunked-too-large', 1_000)).code).toBe('too_large');
    expect(await read('/chunked-too-large', 2_000)).toHaveLength(2_000);
  });

  it('passes an unknown encoding through as raw bytes', async () => {
    expect(await read('/unknown-encoding')).toBe('opaque bytes');
  });

  it('reports a body that does not decompress as a network error', async () => {
    const err = await failure('/corrupt-gzip');
    expect(err.code).toBe('network');
    expect(err.message).toMatch(new RegExp(`^reading ${server.url}/corrupt-gzip failed: `));
  });

  it('reports a connection closed before the declared length as a network error', async () => {
    expect((await failure('/cut')).code).toBe('network');
  });
});
