import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutputTarget } from '../../src/schedules/schedule-schema.js';
import { scheduleHarness, waitFor, type ScheduleHarness } from './harness.js';

describe('output delivery', () => {
  let server: http.Server;
  const received: Array<{ path: string; body: Record<string, unknown> }> = [];
  let failures = 0;
  let h: ScheduleHarness;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        if (req.url === '/fail') {
          failures++;
          res.writeHead(503).end();
          return;
        }
        received.push({ path: req.url ?? '', body: JSON.parse(text) as Record<string, unknown> });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    h = await scheduleHarness(
      {
        'egress.allow': [`127.0.0.1:${port}`],
        'webhooks.channels': {
          ops: `http://127.0.0.1:${port}/hook`,
          broken: `http://127.0.0.1:${port}/fail`,
        },
        'webhooks.retries': 1,
      },
      {
        redact: (t) => t.replaceAll('topsecretvalue', '[REDACTED:TOKEN]'),
        runScript: async () => ({
          success: true,
          result: 'report with topsecretvalue',
          duration_ms: 1,
          logs: [],
        }),
      },
    );
    await h.startWorkers();
  });
  afterAll(async () => {
    await h.close();
    await new Promise((r) => server.close(r));
  });

  /** `direct`: stored without the service's checks (a channel removed from the config later). */
  async function runWith(output_target: OutputTarget, direct = false) {
    const config = {
      name: `deliver-${output_target.provider}-${output_target.channel_id}`,
      cron_expr: '0 8 * * *',
      type: 'script' as const,
      script_name: 'r.star',
      enabled: false,
      output_target,
    };
    const s = direct
      ? await h.schedules.store.create({ ...config, run_once: false, timezone: 'UTC' })
      : await h.schedules.service.create(config);
    await h.schedules.service.trigger(s.id);
    const entry = await waitFor(
      async () => {
        const [e] = await h.schedules.store.runs(s.id);
        return e && e.delivery?.status !== 'pending' ? e : null;
      },
      15_000,
      'delivery outcome',
    );
    return { s, entry };
  }

  it('POSTs {schedule, status, output, at} to the channel URL, redacted, and records success', async () => {
    const { s, entry } = await runWith({ provider: 'webhook', channel_id: 'ops' });
    expect(entry.delivery).toEqual({ status: 'delivered' });
    const got = received.find((r) => r.body.schedule_id === s.id);
    expect(got?.path).toBe('/hook');
    expect(got?.body).toMatchObject({
      schedule: s.name,
      status: 'success',
      output: 'report with [REDACTED:TOKEN]',
      at: entry.finished_at,
    });
  });

  it('retries a failing webhook, then records the error without losing the run result', async () => {
    const { s, entry } = await runWith({ provider: 'webhook', channel_id: 'broken' });
    expect(entry.status).toBe('success');
    expect(entry.output).toBe('report with [REDACTED:TOKEN]');
    expect(entry.delivery).toEqual({ status: 'failed', error: expect.stringMatching(/HTTP 503/) });
    expect(failures).toBe(2);
    expect((await h.schedules.service.get(s.id)).last_run_status).toBe('success');
  });

  it('records a webhook channel gone from the configuration as a permanent delivery error', async () => {
    // Creating a schedule refuses an unknown channel; this one was removed after it was made.
    const { entry } = await runWith({ provider: 'webhook', channel_id: 'nowhere' }, true);
    expect(entry.delivery).toEqual({
      status: 'failed',
      error: expect.stringMatching(/no webhook URL/),
    });
  });

  it.each([
    ['discord', '123456789012345678'],
    ['telegram', '123'],
    ['slack', 'C0123ABCD'],
  ] as const)('records "provider not configured" for %s', async (provider, channel_id) => {
    const { entry } = await runWith({ provider, channel_id });
    expect(entry.status).toBe('success');
    expect(entry.delivery).toEqual({ status: 'failed', error: 'provider not configured' });
  });
});
