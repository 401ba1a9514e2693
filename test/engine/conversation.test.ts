import { describe, expect, it } from 'vitest';
import { converseOnce, openConversation } from '../../src/engine/conversation.js';
import type { ChatEvent, ChatListener, EventHub } from '../../src/engine/event-hub.js';
import { EngineUnavailableError } from '../../src/errors/engine-errors.js';
import { createRedactor } from '../../src/secrets/redactor.js';
import { createStreamRedactor } from '../../src/secrets/stream-redactor.js';

const SECRET = 'sk-conversation-7b2e9d4c1a';

/** The event hub's surface, fed by the test as the engine's event stream would be. */
function engineStandIn(options: { connected?: boolean; refuse?: Error } = {}) {
  const listeners = new Map<string, Set<ChatListener>>();
  const prompts: string[] = [];
  const hub: Pick<EventHub, 'subscribe' | 'whenConnected'> = {
    subscribe(id, listener) {
      const set = listeners.get(id) ?? new Set();
      set.add(listener);
      listeners.set(id, set);
      return () => set.delete(listener);
    },
    whenConnected: async () => {
      if (options.connected === false) throw new Error('timeout');
    },
  };
  const emit = (id: string, event: ChatEvent) => listeners.get(id)?.forEach((l) => l(event));
  return {
    deps: {
      hub,
      client: {
        async promptAsync(_id: string, text: string) {
          if (options.refuse) throw options.refuse;
          prompts.push(text);
        },
      },
      createRedactor: () =>
        createStreamRedactor(createRedactor([{ name: 'API_KEY', value: SECRET }])),
    },
    emit,
    prompts,
    listening: (id: string) => listeners.get(id)?.size ?? 0,
  };
}

describe('conversation', () => {
  it('redacts a secret split across deltas, and an error text whole', async () => {
    const engine = engineStandIn();
    const got: ChatEvent[] = [];
    const conversation = openConversation(engine.deps, 'ses_1', (e) => got.push(e));
    await conversation.prompt('hi');
    engine.emit('ses_1', { type: 'text', content: 'key sk-conversation-' });
    engine.emit('ses_1', { type: 'text', content: '7b2e9d4c1a ok' });
    engine.emit('ses_1', { type: 'error', content: `failed on ${SECRET}` });
    conversation.close();
    const text = got
      .filter((e) => e.type === 'text')
      .map((e) => (e as { content: string }).content)
      .join('');
    expect(text).toBe('key [REDACTED:API_KEY] ok');
    expect(got.at(-1)).toEqual({ type: 'error', content: 'failed on [REDACTED:API_KEY]' });
    expect(JSON.stringify(got)).not.toContain(SECRET);
    expect(engine.listening('ses_1')).toBe(0);
  });

  it('passes done only for a reply under way, never a stray idle', async () => {
    const engine = engineStandIn();
    const got: ChatEvent[] = [];
    const conversation = openConversation(engine.deps, 'ses_1', (e) => got.push(e));
    engine.emit('ses_1', { type: 'done' });
    expect(got).toEqual([]);
    await conversation.prompt('hi');
    engine.emit('ses_1', { type: 'done' });
    expect(got).toEqual([{ type: 'done' }]);
    conversation.close();
  });

  it('refuses a prompt while the event stream is not open, sending nothing', async () => {
    const engine = engineStandIn({ connected: false });
    const conversation = openConversation(engine.deps, 'ses_1', () => {});
    await expect(conversation.prompt('hi')).rejects.toBeInstanceOf(EngineUnavailableError);
    expect(engine.prompts).toEqual([]);
    conversation.close();
  });

  it('ends a turn on done, and on a timeout with the held-back text released', async () => {
    const engine = engineStandIn();
    const got: ChatEvent[] = [];
    const done = converseOnce(engine.deps, 'ses_1', 'hi', {
      timeoutMs: 5000,
      listener: (e) => got.push(e),
    });
    await new Promise((r) => setTimeout(r, 10));
    engine.emit('ses_1', { type: 'done' });
    expect(await done).toBe('done');

    const slow: ChatEvent[] = [];
    const late = converseOnce(engine.deps, 'ses_2', 'hi', {
      timeoutMs: 50,
      listener: (e) => slow.push(e),
    });
    await new Promise((r) => setTimeout(r, 10));
    engine.emit('ses_2', { type: 'text', content: 'sk-conv' });
    expect(await late).toBe('timeout');
    expect(slow).toEqual([{ type: 'text', content: 'sk-conv' }]);
    expect(engine.listening('ses_2')).toBe(0);
  });

  it('ends a turn whose prompt the engine refused with an error line', async () => {
    const engine = engineStandIn({ refuse: new EngineUnavailableError('engine is down') });
    const got: ChatEvent[] = [];
    const end = await converseOnce(engine.deps, 'ses_1', 'hi', {
      timeoutMs: 5000,
      listener: (e) => got.push(e),
    });
    expect(end).toBe('error');
    expect(got).toEqual([{ type: 'error', content: 'Engine error: engine is down' }]);
  });
});
