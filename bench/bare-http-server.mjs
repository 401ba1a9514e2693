// A node:http server that answers every request, once read, with the body a script run's answer
// has: the HTTP part of a run's floor (bench/run-parts.mjs). Imported, it serves in the importing
// process; run as a child process with an IPC channel, it serves there and sends its port.
import http from 'node:http';
import { fileURLToPath } from 'node:url';

const ANSWER = JSON.stringify({
  success: true,
  result: { sum: 3 },
  duration_ms: 0,
  logs: [],
});

/** Listens on a free loopback port; resolves with it and a `close`. */
export async function startBareServer() {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end(ANSWER);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.send) {
  const { port } = await startBareServer();
  process.send(port);
}
