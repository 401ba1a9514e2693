import { isAppError } from '../errors/catalogue.js';
import { EngineUnavailableError } from '../errors/engine-errors.js';
import type { EngineClient } from './client.js';
import type { ChatEvent, EventHub } from './event-hub.js';

/**
 * A streaming redactor as the conversation uses it (src/secrets/stream-redactor.ts): text goes
 * in piece by piece, and comes out once no secret can begin in it; `end` releases the rest.
 */
export interface TextRedactor {
  push(text: string): string;
  end(): string;
}

export interface ConversationDeps {
  client: Pick<EngineClient, 'promptAsync'>;
  hub: Pick<EventHub, 'subscribe' | 'whenConnected'>;
  /** A fresh streaming redactor per conversation. */
  createRedactor: () => TextRedactor;
}

/** How long a prompt waits for the shared event stream to open before it is refused. */
const CONNECT_WAIT_MS = 5000;

/**
 * One conversation with an engine session: its events as redacted chat events, and prompts.
 * Used by both ends people talk through: the WebSocket of engine sessions (`api/routes/chat-ws`)
 * and the chat gateway's replies (`chat/reply-stream`).
 */
export interface Conversation {
  /**
   * Sends a prompt once the event stream is open (the reply's first pieces are lost if the
   * prompt goes out before; `EngineUnavailableError` when it does not open in 5 s). Rejects
   * with the engine's error; the caller says it its way.
   */
  prompt(text: string): Promise<void>;
  /** Releases the text the redactor still holds back, as a last `text` event. */
  flush(): void;
  close(): void;
}

/**
 * Follows `sessionId`: text is released through the streaming redactor, so a secret split
 * across two deltas is caught; an error text (it can quote the prompt or the model's output)
 * is redacted whole after the text before it is released; `done` ends a reply this conversation
 * prompted or saw start, never a stray idle of the session.
 */
export function openConversation(
  deps: ConversationDeps,
  sessionId: string,
  listener: (event: ChatEvent) => void,
): Conversation {
  const redactor = deps.createRedactor();
  let underWay = false;
  let closed = false;
  const flush = () => {
    const rest = redactor.end();
    if (rest) listener({ type: 'text', content: rest });
  };
  const off = deps.hub.subscribe(sessionId, (event) => {
    if (event.type === 'text') {
      underWay = true;
      const released = redactor.push(event.content);
      if (released) listener({ type: 'text', content: released });
      return;
    }
    flush();
    if (event.type === 'error') {
      listener({ type: 'error', content: redactor.push(event.content) + redactor.end() });
      return;
    }
    if (!underWay) return;
    underWay = false;
    listener(event);
  });
  return {
    async prompt(text) {
      await deps.hub.whenConnected(CONNECT_WAIT_MS).catch(() => {
        throw new EngineUnavailableError('event stream not connected');
      });
      // The other end left while the stream was connecting: nobody would read the reply.
      if (closed) return;
      underWay = true;
      try {
        await deps.client.promptAsync(sessionId, text);
      } catch (err) {
        underWay = false;
        throw err;
      }
    },
    flush,
    close() {
      closed = true;
      off();
    },
  };
}

/** How a turn ended: the engine's `done` or `error` (already told), or no reply in time. */
export type TurnEnd = 'done' | 'error' | 'timeout';

/**
 * One prompt and its reply: events go to `listener` until `done` or `error`, or until
 * `timeoutMs` passes (the held-back text is released first); a prompt the engine refused ends
 * the turn with an `error` event saying why.
 */
export async function converseOnce(
  deps: ConversationDeps,
  sessionId: string,
  text: string,
  options: { timeoutMs: number; listener: (event: ChatEvent) => void },
): Promise<TurnEnd> {
  let end!: (how: TurnEnd) => void;
  const ended = new Promise<TurnEnd>((resolve) => (end = resolve));
  let over = false;
  const finish = (how: TurnEnd) => {
    over = true;
    end(how);
  };
  const conversation = openConversation(deps, sessionId, (event) => {
    if (over) return;
    options.listener(event);
    if (event.type !== 'text') finish(event.type);
  });
  const timer = setTimeout(() => {
    if (over) return;
    conversation.flush();
    finish('timeout');
  }, options.timeoutMs);
  conversation.prompt(text).catch((err: unknown) => {
    if (over) return;
    const why = isAppError(err) ? err.message : 'the AI engine failed';
    options.listener({ type: 'error', content: `Engine error: ${why}` });
    finish('error');
  });
  try {
    return await ended;
  } finally {
    clearTimeout(timer);
    conversation.close();
  }
}
