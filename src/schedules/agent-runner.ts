import type { EngineClient } from '../engine/client.js';
import type { RunAgent } from './run-executor.js';

/** Sessions of one schedule kept for inspection; older ones are deleted after each run. */
export const keptAgentSessions = 3;

/**
 * Agent schedules on the AI engine. Each run gets a new session titled `schedule:<name>`: a run
 * then never inherits an ever-growing conversation from earlier runs (cost and context stay
 * flat), while the last `keep` sessions stay in the session list so an administrator can read
 * what the AI did. Older sessions of the same title are deleted after each run.
 */
export function createAgentRunner(deps: {
  engine: EngineClient;
  keep?: number;
  log: { warn(obj: object, msg: string): void };
}): RunAgent {
  const keep = deps.keep ?? keptAgentSessions;

  async function prune(title: string): Promise<void> {
    const mine = (await deps.engine.listSessions())
      .filter((s) => s.title === title)
      .sort((a, b) => b.time.created - a.time.created || b.id.localeCompare(a.id));
    for (const old of mine.slice(keep)) await deps.engine.deleteSession(old.id);
  }

  return async (prompt, timeoutMs, title) => {
    const session = await deps.engine.createSession({ title });
    try {
      return await deps.engine.prompt(session.id, prompt, { timeoutMs });
    } finally {
      await prune(title).catch((err: Error) =>
        deps.log.warn({ err: err.message, title }, 'could not prune old schedule sessions'),
      );
    }
  };
}
