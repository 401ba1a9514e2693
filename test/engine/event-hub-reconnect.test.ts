import net from 'node:net';
import { pino } from 'pino';
import { afterEach, expect, it } from 'vitest';
import { createEngineClient } from '../../src/engine/client.js';
import { createEventHub, type EventHub } from '../../src/engine/event-hub.js';

const log = pino({ level: 'silent' });

/** A loopback port nobody listens on: every connection to it is refused at once. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let hub: EventHub | undefined;
afterEach(async () => {
  await hub?.stop();
  hub = undefined;
});

it('retries an absent engine without piling listeners on its stop signal', async () => {
  // Each retry's wait used to leave its abort listener (and the closure of its timer) on the
  // hub's own signal, for as long as the engine stayed away: node warns past ten.
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
  process.on('warning', onWarning);
  try {
    const real = createEngineClient({
      url: `http://127.0.0.1:${await closedPort()}`,
      log,
      requestTimeoutMs: 1000,
    });
    let attempts = 0;
    hub = createEventHub({
      client: { events: (signal, onEvent) => (attempts++, real.events(signal, onEvent)) },
      log,
      backoff: { initialMs: 1, maxMs: 1 },
    });
    hub.start();
    await expect.poll(() => attempts, { timeout: 10_000 }).toBeGreaterThanOrEqual(30);
    await hub.stop();
    // Warnings are emitted on the next tick.
    await new Promise((r) => setImmediate(r));
    expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
  } finally {
    process.off('warning', onWarning);
  }
});
