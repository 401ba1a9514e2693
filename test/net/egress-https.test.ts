import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgress } from '../../src/net/egress.js';
import type { Resolver } from '../../src/net/resolve-target.js';
import { tmpDir } from '../mcp/tools/tool-context.js';

let server: Server;
let port: number;
let servername: string | undefined;

/** A TLS server with a throw-away self-signed certificate: enough to see the handshake happen. */
beforeAll(async () => {
  const dir = tmpDir('steward-tls-');
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=secure.test',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  server = createServer(
    {
      key: readFileSync(key),
      cert: readFileSync(cert),
      // Records the SNI the client sent; no context means "use the default certificate".
      SNICallback: (name, callback) => {
        servername = name;
        callback(null, undefined);
      },
    },
    (_req, res) => {
      res.end('tls ok');
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('egress over https', () => {
  it('connects to the pinned address with the host name as SNI and verifies the certificate', async () => {
    const resolver: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const egress = createEgress({
      allow: [`secure.test:${port}`],
      timeoutMs: 5_000,
      maxBodyBytes: 10_000,
      maxRedirects: 0,
      resolver,
    });
    // A self-signed certificate is not trusted: the handshake happens, and verification refuses it.
    await expect(egress.fetch(`https://secure.test:${port}/`)).rejects.toThrow(
      /self[- ]signed certificate/,
    );
    expect(servername).toBe('secure.test');
  });
});
