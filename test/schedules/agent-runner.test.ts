import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngineClient, type EngineClient } from '../../src/engine/client.js';
import { createAgentRunner } from '../../src/schedules/agent-runner.js';
import { startFakeModel, type FakeModel } from '../support/fake-model.js';
import { startTestEngine, type TestEngine } from '../support/opencode.js';
import { scheduleHarness, waitFor, type ScheduleHarness } from './harness.js';

const log = pino({ level: 'silent' });

describe('agent schedules on a real engine', () => {
  let fake: FakeModel;
  let engine: TestEngine;
  let client: EngineClient;
  let h: ScheduleHarness;

  beforeAll(async () => {
    fake = await startFakeModel();
    engine = await startTestEngine({
      modelURL: fake.baseURL,
      password: 'pw-agent',
      config: { model: 'mock/echo' },
    });
    client = createEngineClient({
      url: engine.url,
      password: 'pw-agent',
      log,
      requestTimeoutMs: 10_000,
    });
    h = await scheduleHarness(
      { 'schedules.agent_timeout': '30s' },
      { runAgent: createAgentRunner({ engine: client, log }) },
    );
    await h.startWorkers();
  }, 120_000);

  afterAll(async () => {
    await h?.close();
    await engine?.stop();
    await fake?.close();
  });

  it('runs each time in a new session titled schedule:<name>, keeping the last 3', async () => {
    fake.setFallback({ kind: 'text', text: 'Good morning: nothing on the calendar.' });
    const s = await h.schedules.service.create({
      name: 'brief',
      cron_expr: '0 8 * * *',
      type: 'agent',
      prompt: 'Write the morning brief',
      enabled: false,
    });
    for (let i = 1; i <= 4; i++) {
      await h.schedules.service.trigger(s.id);
      await waitFor(
        async () => (await h.schedules.store.runs(s.id)).length === i,
        60_000,
        `run ${i}`,
      );
    }
    const runs = await h.schedules.store.runs(s.id);
    expect(runs.every((r) => r.status === 'success')).toBe(true);
    expect((await h.schedules.service.get(s.id)).last_run_output).toBe(
      'Good morning: nothing on the calendar.',
    );
    expect(fake.chatRequests().some((r) => r.userText.includes('Write the morning brief'))).toBe(
      true,
    );
    const sessions = (await client.listSessions()).filter((x) => x.title === 'schedule:brief');
    expect(sessions).toHaveLength(3);
  }, 120_000);
});
