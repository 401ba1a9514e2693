import net from 'node:net';

/**
 * A TCP server on 127.0.0.1 that accepts connections and never answers: a hung or partitioned
 * Redis, against which every command waits forever.
 */
export async function startBlackHole(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets: net.Socket[] = [];
  const server = net.createServer((s) => sockets.push(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
