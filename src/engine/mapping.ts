import type { EngineMessage, EngineSession } from './client.js';

/** Session as the spec shows it; `active` is added by the list endpoint only. */
export interface SessionView {
  id: string;
  slug: string;
  title: string;
  directory: string;
  version: string;
  time: { created: number; updated: number };
  active?: boolean;
}

export interface MessageView {
  id: string;
  sessionID: string;
  role: string;
  /** Passed through from the engine as they are (DESIGN: "message part types"). */
  parts: unknown[];
  time: { created: number; updated: number };
}

export function toSessionView(session: EngineSession): SessionView {
  return {
    id: session.id,
    slug: session.slug,
    title: session.title ?? '',
    directory: session.directory,
    version: session.version,
    time: { created: session.time.created, updated: session.time.updated },
  };
}

/** Engine messages have no `updated`: a finished reply's completion time stands in for it. */
export function toMessageView(message: EngineMessage): MessageView {
  const { info, parts } = message;
  const completed = info.role === 'assistant' ? info.time.completed : undefined;
  return {
    id: info.id,
    sessionID: info.sessionID,
    role: info.role,
    parts,
    time: { created: info.time.created, updated: completed ?? info.time.created },
  };
}
