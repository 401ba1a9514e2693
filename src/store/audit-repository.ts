import { keys } from './keys.js';
import { callLua } from './lua-commands.js';
import type { Redis } from './redis.js';

/** One stored entry: its stream id, its JSON and its chain hash, as written. */
export interface StoredAuditEntry {
  id: string;
  json: string;
  hash: string;
}

/**
 * The audit chain in Redis: a stream of entries, the head (hash of the newest) and the anchor
 * (hash of the newest pruned). Appends are compare-and-set on the head, so entries computed
 * against a stale head are never written; `src/runtime/audit-log.ts` computes the hashes.
 */
export function createAuditRepository(redis: Redis) {
  const entries = (reply: Array<[string, string[]]>): StoredAuditEntry[] =>
    reply.map(([id, fields]) => {
      const at = (name: string) => fields[fields.indexOf(name) + 1] ?? '';
      return { id, json: at('e'), hash: at('h') };
    });

  return {
    head: async (): Promise<string> => (await redis.get(keys.auditHead())) ?? '',
    anchor: async (): Promise<string> => (await redis.get(keys.auditAnchor())) ?? '',

    /** Ids of the appended entries, or null when the head is no longer `expectedHead`. */
    async append(
      expectedHead: string,
      batch: ReadonlyArray<{ json: string; hash: string }>,
    ): Promise<string[] | null> {
      const reply = (await callLua(
        redis,
        'auditAppend',
        keys.auditLog(),
        keys.auditHead(),
        expectedHead,
        ...batch.flatMap((e) => [e.json, e.hash]),
      )) as [number, ...string[]];
      return reply[0] === 1 ? (reply.slice(1) as string[]) : null;
    },

    /** Oldest first, from `after` (exclusive; `-` for the start). */
    async forward(after: string, count: number): Promise<StoredAuditEntry[]> {
      const start = after === '-' ? '-' : `(${after}`;
      return entries(
        (await redis.xrange(keys.auditLog(), start, '+', 'COUNT', count)) as Array<
          [string, string[]]
        >,
      );
    },

    /** Newest first, from `before` (exclusive; `+` for the end) down to `floor` (inclusive). */
    async backward(before: string, floor: string, count: number): Promise<StoredAuditEntry[]> {
      const end = before === '+' ? '+' : `(${before}`;
      return entries(
        (await redis.xrevrange(keys.auditLog(), end, floor, 'COUNT', count)) as Array<
          [string, string[]]
        >,
      );
    },

    count: (): Promise<number> => redis.xlen(keys.auditLog()),

    /** Drops entries older than `cutoffMs`, keeping the chain verifiable; returns how many. */
    async prune(cutoffMs: number): Promise<number> {
      return Number(
        await callLua(redis, 'auditPrune', keys.auditLog(), keys.auditAnchor(), `${cutoffMs}-0`),
      );
    },
  };
}

export type AuditRepository = ReturnType<typeof createAuditRepository>;
