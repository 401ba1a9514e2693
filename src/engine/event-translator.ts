import { engineErrorMessage, type EngineEvent } from './client.js';

/** What a chat client sees of a turn (SPEC "Events"). */
export type ChatEvent =
  { type: 'text'; content: string } | { type: 'done' } | { type: 'error'; content: string };

export interface TranslatedEvent {
  sessionID: string;
  event: ChatEvent;
}

/**
 * Turns the engine's raw events into chat events. Stateful: a delta only says which part it
 * belongs to, so the translator remembers which parts were announced as `text` (reasoning
 * parts stream deltas too and must not reach the user).
 */
export interface EventTranslator {
  translate(event: EngineEvent): TranslatedEvent | null;
  /** Sessions with a turn in flight (seen busy, not yet idle). */
  busySessions(): string[];
  reset(): void;
}

interface TurnState {
  /** Text parts of the reply → characters already forwarded. */
  textParts: Map<string, number>;
  /** The user's own messages: their text parts are never echoed. */
  userMessages: Set<string>;
}

export function createEventTranslator(): EventTranslator {
  const turns = new Map<string, TurnState>();
  const busy = new Set<string>();
  // session.status idle and session.idle both end a turn; one `done` is enough.
  const doneSent = new Set<string>();

  const turn = (sessionID: string): TurnState => {
    let state = turns.get(sessionID);
    if (!state) turns.set(sessionID, (state = { textParts: new Map(), userMessages: new Set() }));
    return state;
  };
  const text = (sessionID: string, content: string): TranslatedEvent => {
    doneSent.delete(sessionID);
    return { sessionID, event: { type: 'text', content } };
  };

  const finish = (sessionID: string): TranslatedEvent | null => {
    turns.delete(sessionID);
    busy.delete(sessionID);
    if (doneSent.has(sessionID)) return null;
    doneSent.add(sessionID);
    return { sessionID, event: { type: 'done' } };
  };

  return {
    translate(event) {
      switch (event.type) {
        case 'message.updated': {
          const { info } = event.properties;
          if (info.role === 'user') turn(info.sessionID).userMessages.add(info.id);
          return null;
        }
        case 'message.part.updated': {
          const { part } = event.properties;
          if (part.type !== 'text' || part.synthetic || part.ignored) return null;
          const state = turn(part.sessionID);
          if (state.userMessages.has(part.messageID)) return null;
          const sent = state.textParts.get(part.id) ?? 0;
          state.textParts.set(part.id, sent);
          // A finished part carries its whole text: release what no delta brought (a provider
          // that does not stream, or deltas missed while the stream reconnected).
          if (part.time?.end !== undefined && part.text.length > sent) {
            state.textParts.set(part.id, part.text.length);
            return text(part.sessionID, part.text.slice(sent));
          }
          return null;
        }
        case 'message.part.delta': {
          const { sessionID, partID, field, delta } = event.properties;
          if (field !== 'text' || !delta) return null;
          const parts = turns.get(sessionID)?.textParts;
          const sent = parts?.get(partID);
          if (parts === undefined || sent === undefined) return null;
          parts.set(partID, sent + delta.length);
          return text(sessionID, delta);
        }
        case 'session.status': {
          const { sessionID, status } = event.properties;
          if (status.type === 'idle') return finish(sessionID);
          busy.add(sessionID);
          doneSent.delete(sessionID);
          return null;
        }
        case 'session.idle':
          return finish(event.properties.sessionID);
        case 'session.error': {
          const { sessionID, error } = event.properties;
          if (!sessionID) return null;
          doneSent.delete(sessionID);
          return {
            sessionID,
            event: { type: 'error', content: `Engine error: ${engineErrorMessage(error)}` },
          };
        }
        default:
          return null;
      }
    },
    busySessions: () => [...busy],
    reset() {
      turns.clear();
      busy.clear();
      doneSent.clear();
    },
  };
}
