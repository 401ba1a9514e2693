import http from 'node:http';
import type { AddressInfo } from 'node:net';
// Not imported from the store-availability plugin: this module is loaded before anything heavy
// (ioredis, fastify), so that the port answers within moments of the process starting.
const storeUnavailableMessage = 'the data store (Redis) is not reachable; try again shortly';
const startingMessage = 'Steward is starting; try again shortly';

/** Why the standby is answering: the process is still starting, or Redis does not answer. */
export type StandbyReason = 'starting' | 'script_store';

export interface StandbyServer {
  port: number;
  close(): Promise<void>;
}

function send(res: http.ServerResponse, status: number, body: unknown, text = false): void {
  const payload = text ? String(body) : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': text ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
  });
  res.end(payload);
}

/**
 * What listens on the API's port while Redis has not answered yet: an orchestrator sees the
 * process alive (`/healthz` 200) and not ready, and a client gets the contract's 503 instead of
 * a refused connection. It is plain `node:http` on purpose: nothing of the app can be built
 * before the store answers (the secrets key check and the redaction set read it).
 */
export async function listenStandby(
  host: string,
  port: number,
  reason: () => StandbyReason = () => 'script_store',
): Promise<StandbyServer> {
  const server = http.createServer((req, res) => {
    const url = (req.url ?? '/').split('?')[0] ?? '/';
    const why = reason();
    if (url === '/healthz') return send(res, 200, 'OK', true);
    if (url === '/ready') {
      return send(res, 503, {
        ready: false,
        checks: { admin_setup: false, script_store: false, mcp_server: false },
        reason: why,
      });
    }
    if (url === '/health') {
      return send(
        res,
        503,
        why === 'starting'
          ? { status: 'unhealthy', reason: 'starting', message: startingMessage }
          : { status: 'unhealthy', reason: 'store_unavailable', message: 'Redis is not reachable' },
      );
    }
    return send(res, 503, {
      error: 'service_unavailable',
      message: why === 'starting' ? startingMessage : storeUnavailableMessage,
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
