import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryError } from '../../../src/errors/delivery-error.js';
import { createEgress } from '../../../src/net/egress.js';
import type { DeliveryMessage } from '../../../src/schedules/delivery/provider.js';
import { createWebhookProvider } from '../../../src/schedules/delivery/webhook-provider.js';
import type { Redis } from '../../../src/store/redis.js';
import { createScheduleRunRepository } from '../../../src/store/schedule-run-repository.js';
import { startServer, type LocalServer } from '../../net/local-server.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../../support/redis.js';

const base: DeliveryMessage = {
  deliveryId: 'r1:webhook:hook',
  scheduleId: 's1',
  scheduleName: 'daily',
  runId: 'r1',
  status: 'error',
  error: 'boom',
  output: 'it broke',
  at: '2026-01-01T08:00:01.000Z',
};

/** Each call a delivery of its own (a POST is claimed once per delivery id). */
const fresh = (): DeliveryMessage => ({ ...base, deliveryId: `${randomUUID()}:webhook:hook` });

let server: LocalServer;
let redis: Redis;
let runState: ReturnType<typeof createScheduleRunRepository>;
const prefix = uniquePrefix('webhook');

beforeAll(async () => {
  redis = storeRedis(prefix);
  runState = createScheduleRunRepository(redis, { leaseMs: 1000, claimRetentionMs: 60_000 });
  server = await startServer((req, res) => {
    const status = Number(/\/status\/(\d+)/.exec(req.url ?? '')?.[1] ?? 204);
    res.writeHead(status).end();
  });
});
afterAll(async () => {
  await server.close();
  redis.disconnect();
  await dropPrefix(prefix);
});

function provider(allow = [`127.0.0.1:${server.port}`]) {
  const egress = createEgress({ allow, timeoutMs: 5000, maxBodyBytes: 1 << 20, maxRedirects: 0 });
  return createWebhookProvider({
    egress,
    channels: {
      ops: `${server.url}/hook`,
      ...Object.fromEntries(
        [400, 404, 408, 429, 500, 503].map((s) => [`s${s}`, `${server.url}/status/${s}`]),
      ),
    },
    sends: runState,
    timeoutMs: 2000,
  });
}

async function failure(
  p: ReturnType<typeof provider>,
  channel: string,
  message = fresh(),
): Promise<DeliveryError> {
  const err = await p.deliver(channel, message).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DeliveryError);
  return err as DeliveryError;
}

describe('webhook provider', () => {
  it('POSTs the run as JSON to the channel URL', async () => {
    const before = server.requests.length;
    await provider().deliver('ops', fresh());
    const req = server.requests[before];
    expect(req).toMatchObject({ method: 'POST', url: '/hook' });
    expect(req?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req?.body ?? '')).toEqual({
      schedule: 'daily',
      schedule_id: 's1',
      run_id: 'r1',
      status: 'error',
      error: 'boom',
      output: 'it broke',
      at: '2026-01-01T08:00:01.000Z',
    });
  });

  it('fails permanently for a channel with no configured URL, sending nothing', async () => {
    const before = server.requests.length;
    const err = await failure(provider(), 'nope');
    expect(err.message).toBe('no webhook URL is configured for channel "nope"');
    expect(err.permanent).toBe(true);
    expect(server.requests.length).toBe(before);
  });

  it('treats 4xx answers as permanent, except 408 and 429', async () => {
    const p = provider();
    for (const [channel, permanent] of [
      ['s400', true],
      ['s404', true],
      ['s408', false],
      ['s429', false],
      ['s500', false],
      ['s503', false],
    ] as const) {
      const err = await failure(p, channel);
      expect(err.message).toBe(`webhook ${channel} answered HTTP ${channel.slice(1)}`);
      expect(err.permanent).toBe(permanent);
    }
  });

  it('goes through egress: a URL outside the allowlist is a retried delivery error', async () => {
    const before = server.requests.length;
    const err = await failure(provider(['example.invalid']), 'ops');
    expect(err.message).toMatch(/^webhook ops: /);
    expect(err.permanent).toBe(false);
    expect(server.requests.length).toBe(before);
  });

  it('sends a delivery once: a retry after its POST was answered does not POST again', async () => {
    const p = provider();
    const message = fresh();
    const before = server.requests.length;
    await p.deliver('ops', message);
    await p.deliver('ops', message);
    expect(server.requests.length).toBe(before + 1);
  });

  it('a POST whose sender stopped mid-send (its claim unsettled) is unknown, never sent again', async () => {
    const message = fresh();
    // The sender that died: it claimed the POST and never said how it ended.
    expect(await runState.claimWebhookSend(message.deliveryId, 60_000)).toBe('claimed');
    const before = server.requests.length;
    const err = await failure(provider(), 'ops', message);
    expect(err.details.unknown).toBe(true);
    expect(err.permanent).toBe(true);
    expect(server.requests.length).toBe(before);
  });

  it('a failure the sender saw lets the claim go: the retry POSTs again', async () => {
    const p = provider();
    const message = fresh();
    const before = server.requests.length;
    expect((await failure(p, 's503', message)).permanent).toBe(false);
    expect((await failure(p, 's503', message)).details.unknown).toBe(false);
    expect((await failure(provider(['example.invalid']), 'ops', message)).permanent).toBe(false);
    await p.deliver('ops', message);
    expect(server.requests.length).toBe(before + 3);
  });
});
