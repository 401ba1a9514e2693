import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEngineClient, type EngineClient } from '../../src/engine/client.js';
import { createEventHub, type ChatEvent, type EventHub } from '../../src/engine/event-hub.js';
import { startFakeModel, type FakeModel } from '../support/fake-model.js';
import { startTestEngine, type TestEngine } from '../support/opencode.js';

const log = pino({ level: 'silent' });

/** Collects a session's chat events until `done` (or a timeout). */
function collect(hub: EventHub, sessionID: string, timeoutMs = 20_000): Promise<ChatEvent[]> {
  return new Promise((resolve, reject) => {
    const events: ChatEvent[] = [];
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no done within ${timeoutMs} ms; got ${JSON.stringify(events)}`));
    }, timeoutMs);
    const off = hub.subscribe(sessionID, (event) => {
      events.push(event);
      if (event.type === 'done') {
        clearTimeout(timer);
        off();
        resolve(events);
      }
    });
  });
}

describe('event hub against a real engine', { timeout: 60_000 }, () => {
  let fake: FakeModel;
  let engine: TestEngine;
  let client: EngineClient;
  let hub: EventHub;

  beforeAll(async () => {
    fake = await startFakeModel();
    engine = await startTestEngine({ modelURL: fake.baseURL, password: 'pw-hub' });
    client = createEngineClient({
      url: engine.url,
      password: 'pw-hub',
      log,
      requestTimeoutMs: 10_000,
    });
    hub = createEventHub({ client, log, backoff: { initialMs: 50, maxMs: 500 } });
    await hub.whenConnected(20_000);
  });

  afterAll(async () => {
    await hub?.stop();
    await engine?.stop();
    await fake?.close();
  });

  beforeEach(() => fake.reset());

  it('streams a reply as text pieces then done, without reasoning', async () => {
    const session = await client.createSession({ title: 'stream' });
    fake.enqueue({
      kind: 'text',
      text: 'The quick brown fox jumps',
      chunks: 5,
      delayMs: 20,
      reasoning: 'SECRET-THOUGHT',
    });
    const events = collect(hub, session.id);
    await client.promptAsync(session.id, 'hello');
    const got = await events;

    expect(got.at(-1)).toEqual({ type: 'done' });
    const texts = got.filter((e) => e.type === 'text');
    expect(texts.length).toBeGreaterThanOrEqual(2);
    expect(texts.map((e) => (e as { content: string }).content).join('')).toBe(
      'The quick brown fox jumps',
    );
    expect(got.filter((e) => e.type !== 'text' && e.type !== 'done')).toEqual([]);
    expect(JSON.stringify(got)).not.toContain('SECRET-THOUGHT');
    // The user's own prompt is a text part too, but it is never echoed back.
    expect(JSON.stringify(got)).not.toContain('hello');
  });

  it('keeps sessions apart', async () => {
    const a = await client.createSession({ title: 'a' });
    const b = await client.createSession({ title: 'b' });
    const seenByB: ChatEvent[] = [];
    const offB = hub.subscribe(b.id, (e) => seenByB.push(e));
    fake.enqueue({ kind: 'text', text: 'only for a', chunks: 2 });
    const events = collect(hub, a.id);
    await client.promptAsync(a.id, 'to a');
    expect((await events).at(-1)).toEqual({ type: 'done' });
    offB();
    expect(seenByB).toEqual([]);
  });

  it('reports a model failure as an error starting with "Engine error:"', async () => {
    const session = await client.createSession({ title: 'failing' });
    fake.enqueue({ kind: 'error', status: 400, message: 'the fake model refuses' });
    const events = collect(hub, session.id);
    await client.promptAsync(session.id, 'please fail');
    const got = await events;
    const errors = got.filter((e) => e.type === 'error');
    expect(errors).toHaveLength(1);
    expect((errors[0] as { content: string }).content).toMatch(/^Engine error: /);
    expect((errors[0] as { content: string }).content).toContain('the fake model refuses');
    expect(got.filter((e) => e.type === 'text')).toEqual([]);
  });

  it('the blocking prompt returns the final text', async () => {
    const session = await client.createSession({ title: 'blocking' });
    fake.enqueue({ kind: 'text', text: 'all at once', chunks: 3 });
    expect(await client.prompt(session.id, 'block')).toBe('all at once');
  });

  it('a blocking prompt that fails raises engine_unavailable with the engine message', async () => {
    const session = await client.createSession({ title: 'blocking-fail' });
    fake.enqueue({ kind: 'error', status: 400, message: 'no way' });
    await expect(client.prompt(session.id, 'fail')).rejects.toMatchObject({
      code: 'engine_unavailable',
      message: expect.stringMatching(/^Engine error: .*no way/),
    });
  });

  it('abort ends a slow turn', async () => {
    const session = await client.createSession({ title: 'abort' });
    fake.enqueue({ kind: 'text', text: 'x'.repeat(200), chunks: 200, delayMs: 50 });
    const events = collect(hub, session.id);
    await client.promptAsync(session.id, 'slow');
    await new Promise((r) => setTimeout(r, 1500));
    await client.abort(session.id);
    const got = await events;
    expect(got.at(-1)).toEqual({ type: 'done' });
    const text = got.flatMap((e) => (e.type === 'text' ? [e.content] : [])).join('');
    expect(text.length).toBeLessThan(200);
  });
});
