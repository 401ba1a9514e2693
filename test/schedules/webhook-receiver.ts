import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WebhookReceiver {
  /** The URL of the receiver's one hook. */
  url: string;
  /** `127.0.0.1:<port>`, for `egress.allow`. */
  host: string;
  /** Every POST body, in arrival order (held ones too). */
  received: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * A webhook endpoint on loopback. `answers(n)` decides for the n-th POST (1-based): true answers
 * 204, false holds the request open (the sender is mid-send until the receiver closes), so a
 * test can kill the sender at that known point.
 */
export async function startWebhookReceiver(
  answers: (n: number) => boolean = () => true,
): Promise<WebhookReceiver> {
  const received: Array<Record<string, unknown>> = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      received.push(JSON.parse(text) as Record<string, unknown>);
      if (answers(received.length)) res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    host: `127.0.0.1:${port}`,
    received,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
