import { keys } from './keys.js';
import { callLua } from './lua-commands.js';
import type { Redis } from './redis.js';

/**
 * Answers from workers to the processes whose callers wait for them (`src/queue/client.ts`): one
 * list per waiting process, so an answer is never lost while its process reads (a reconnect, a
 * slow reader), unlike a pub/sub message, and each process wakes only for its own answers,
 * unlike a queue's event stream, which wakes every reader for every event of every job.
 */

/** How long a reply list outlives its last answer: far longer than any caller waits. */
const replyTtlMs = 5 * 60_000;

export interface RunReplies {
  /** Leaves `answer` for the process whose queue client is `client`. */
  send(client: string, answer: string): Promise<void>;
}

export function createRunReplies(redis: Redis): RunReplies {
  return {
    async send(client, answer) {
      await callLua(redis, 'runReplySend', keys.runReplies(client), answer, replyTtlMs);
    },
  };
}

/** Answers taken by one read at most: a burst of finished runs is read in one round trip. */
const takeAtMost = 128;

/**
 * The waiting process's side: a blocking read on a connection of its own (it holds the
 * connection while it waits), of every answer queued, up to `takeAtMost`: BLMPOP (Redis 7), or
 * one answer per BLPOP on an older Redis. `close` ends a wait in progress.
 */
export interface RunReplyReader {
  take(waitSeconds: number): Promise<string[]>;
  close(): void;
}

export function createRunReplyReader(redis: Redis, client: string): RunReplyReader {
  const key = keys.runReplies(client);
  let many = true;
  return {
    async take(waitSeconds) {
      if (many) {
        try {
          const popped = await redis.blmpop(waitSeconds, 1, key, 'LEFT', 'COUNT', takeAtMost);
          return popped ? popped[1] : [];
        } catch (err) {
          if (!/unknown command/i.test((err as Error).message)) throw err;
          many = false;
        }
      }
      const popped = await redis.blpop(key, waitSeconds);
      return popped ? [popped[1]] : [];
    },
    close: () => redis.disconnect(),
  };
}
