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

export function createEventTranslator(): EventTranslator {
  const textParts = new Map<string, Set<string>>();
  const busy = new Set<string>();
  // session.status idle and session.idle both end a turn; one `done` is enough.
  const doneSent = new Set<string>();

  const finish = (sessionID: string): TranslatedEvent | null => {
    textParts.delete(sessionID);
    busy.delete(sessionID);
    if (doneSent.has(sessionID)) return null;
    doneSent.add(sessionID);
    return { sessionID, event: { type: 'done' } };
  };

  return {
    translate(event) {
      switch (event.type) {
        case 'message.part.updated': {
          const { part } = event.properties;
          if (part.type !== 'text') return null;
          let parts = textParts.get(part.sessionID);
          if (!parts) textParts.set(part.sessionID, (parts = new Set()));
          parts.add(part.id);
          return null;
        }
        case 'message.part.delta': {
          const { sessionID, partID, field, delta } = event.properties;
          if (field !== 'text' || !delta || !textParts.get(sessionID)?.has(partID)) return null;
          doneSent.delete(sessionID);
          return { sessionID, event: { type: 'text', content: delta } };
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
      textParts.clear();
      busy.clear();
      doneSent.clear();
    },
  };
}
