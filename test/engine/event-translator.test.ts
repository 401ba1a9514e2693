import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { EngineClient, EngineEvent } from '../../src/engine/client.js';
import { createEventHub, type ChatEvent } from '../../src/engine/event-hub.js';
import { createEventTranslator } from '../../src/engine/event-translator.js';

const log = pino({ level: 'silent' });
const S = 'ses_1';

// Shapes as opencode 1.18.33 sends them (see shared/notes/opencode.md); only the fields read.
const ev = {
  partUpdated: (id: string, type: string, sessionID = S) =>
    ({
      id: 'e',
      type: 'message.part.updated',
      properties: { sessionID, part: { id, type, sessionID, messageID: 'm', text: '' }, time: 0 },
    }) as unknown as EngineEvent,
  delta: (partID: string, delta: string, sessionID = S, field = 'text') =>
    ({
      id: 'e',
      type: 'message.part.delta',
      properties: { sessionID, messageID: 'm', partID, field, delta },
    }) as EngineEvent,
  status: (type: 'busy' | 'idle', sessionID = S) =>
    ({
      id: 'e',
      type: 'session.status',
      properties: { sessionID, status: { type } },
    }) as EngineEvent,
  idle: (sessionID = S) =>
    ({ id: 'e', type: 'session.idle', properties: { sessionID } }) as EngineEvent,
  error: (message: string, sessionID = S) =>
    ({
      id: 'e',
      type: 'session.error',
      properties: { sessionID, error: { name: 'APIError', data: { message } } },
    }) as unknown as EngineEvent,
};

describe('event translator', () => {
  it('forwards deltas of text parts only, then one done', () => {
    const t = createEventTranslator();
    const out = [
      ev.status('busy'),
      ev.partUpdated('p-reason', 'reasoning'),
      ev.delta('p-reason', 'hidden thought'),
      ev.partUpdated('p-text', 'text'),
      ev.delta('p-text', 'Hel'),
      ev.delta('p-text', 'lo'),
      ev.delta('p-text', '', S),
      ev.delta('p-unknown', 'never announced'),
      ev.delta('p-text', '{"x":1}', S, 'metadata'),
      ev.status('idle'),
      ev.idle(),
    ].flatMap((e) => {
      const r = t.translate(e);
      return r ? [r] : [];
    });
    expect(out).toEqual([
      { sessionID: S, event: { type: 'text', content: 'Hel' } },
      { sessionID: S, event: { type: 'text', content: 'lo' } },
      { sessionID: S, event: { type: 'done' } },
    ]);
    expect(t.busySessions()).toEqual([]);
  });

  it('turns session.error into an Engine error event', () => {
    const t = createEventTranslator();
    expect(t.translate(ev.error('quota exceeded'))).toEqual({
      sessionID: S,
      event: { type: 'error', content: 'Engine error: quota exceeded' },
    });
  });
});

describe('event translator, whole parts', () => {
  const finished = (id: string, text: string, messageID = 'm') =>
    ({
      id: 'e',
      type: 'message.part.updated',
      properties: {
        sessionID: S,
        part: { id, type: 'text', sessionID: S, messageID, text, time: { start: 1, end: 2 } },
        time: 0,
      },
    }) as unknown as EngineEvent;
  const userMessage = (id: string) =>
    ({
      id: 'e',
      type: 'message.updated',
      properties: { sessionID: S, info: { id, sessionID: S, role: 'user', time: { created: 1 } } },
    }) as unknown as EngineEvent;
  const run = (events: EngineEvent[]) => {
    const t = createEventTranslator();
    return events.flatMap((e) => {
      const r = t.translate(e);
      return r && r.event.type === 'text' ? [r.event.content] : [];
    });
  };

  it('releases the text of a part that arrived whole, once', () => {
    expect(
      run([
        ev.partUpdated('p', 'text'),
        finished('p', 'all at once'),
        finished('p', 'all at once'),
      ]),
    ).toEqual(['all at once']);
  });

  it('adds nothing when the deltas already carried the text, and only the rest when some were missed', () => {
    expect(
      run([
        ev.partUpdated('p', 'text'),
        ev.delta('p', 'He'),
        ev.delta('p', 'llo'),
        finished('p', 'Hello'),
      ]),
    ).toEqual(['He', 'llo']);
    expect(run([ev.partUpdated('p', 'text'), ev.delta('p', 'He'), finished('p', 'Hello')])).toEqual(
      ['He', 'llo'],
    );
  });

  it("never echoes the user's own text", () => {
    expect(
      run([userMessage('mu'), finished('pu', 'my question', 'mu'), ev.delta('pu', 'my question')]),
    ).toEqual([]);
  });
});

describe('event hub connection handling', () => {
  /** A client whose every `events()` call plays the next script, then ends the stream. */
  function scriptedClient(scripts: EngineEvent[][]): {
    client: Pick<EngineClient, 'events'>;
    calls: () => number;
  } {
    let calls = 0;
    return {
      calls: () => calls,
      client: {
        events: async (signal, onOpen) => {
          const script = scripts[calls++];
          if (!script) {
            // No more scripts: behave like an idle, open stream until the hub stops.
            onOpen?.();
            return (async function* () {
              await new Promise((r) => signal.addEventListener('abort', r));
              yield* [] as EngineEvent[];
            })();
          }
          return (async function* () {
            onOpen?.();
            for (const e of script) yield e;
          })();
        },
      },
    };
  }

  it('fans out to every listener of a session and reconnects after the stream ends', async () => {
    const { client, calls } = scriptedClient([
      [ev.status('busy'), ev.partUpdated('p', 'text'), ev.delta('p', 'one')],
      [
        ev.status('busy', 'ses_2'),
        ev.partUpdated('q', 'text', 'ses_2'),
        ev.delta('q', 'two', 'ses_2'),
        ev.idle('ses_2'),
      ],
    ]);
    const hub = createEventHub({ client, log, backoff: { initialMs: 10, maxMs: 20 } });
    const a: ChatEvent[] = [];
    const b: ChatEvent[] = [];
    const other: ChatEvent[] = [];
    const offA = hub.subscribe(S, (e) => a.push(e));
    hub.subscribe(S, (e) => b.push(e));
    hub.subscribe('ses_2', (e) => other.push(e));
    await hub.whenConnected(1000);
    await new Promise((r) => setTimeout(r, 200));
    expect(calls()).toBe(3);
    const lost = { type: 'error', content: 'Engine error: lost the connection to the AI engine' };
    expect(a).toEqual([{ type: 'text', content: 'one' }, lost]);
    expect(b).toEqual(a);
    expect(other).toEqual([{ type: 'text', content: 'two' }, { type: 'done' }]);
    offA();
    await hub.stop();
    expect(hub.connected()).toBe(false);
  });

  it('drops a connection that stays silent and connects again', async () => {
    let calls = 0;
    const client: Pick<EngineClient, 'events'> = {
      events: async (signal, onEvent) => {
        calls++;
        return (async function* () {
          onEvent?.();
          // Open but silent until aborted, like a socket a dead engine's child still holds.
          await new Promise((r) => signal.addEventListener('abort', r));
          yield* [] as EngineEvent[];
        })();
      },
    };
    const hub = createEventHub({
      client,
      log,
      backoff: { initialMs: 10, maxMs: 20 },
      idleTimeoutMs: 100,
    });
    hub.start();
    await new Promise((r) => setTimeout(r, 450));
    expect(calls).toBeGreaterThanOrEqual(3);
    const started = Date.now();
    await hub.stop();
    expect(Date.now() - started).toBeLessThan(100);
  });

  it('a throwing listener does not stop the others', async () => {
    const { client } = scriptedClient([
      [ev.status('busy'), ev.partUpdated('p', 'text'), ev.delta('p', 'x'), ev.idle()],
    ]);
    const hub = createEventHub({ client, log, backoff: { initialMs: 10, maxMs: 20 } });
    const got: ChatEvent[] = [];
    hub.subscribe(S, () => {
      throw new Error('boom');
    });
    hub.subscribe(S, (e) => got.push(e));
    await new Promise((r) => setTimeout(r, 100));
    expect(got).toEqual([{ type: 'text', content: 'x' }, { type: 'done' }]);
    await hub.stop();
  });
});
