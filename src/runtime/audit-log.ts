import type { Logger } from '../log/logger.js';
import type { AuditRepository, StoredAuditEntry } from '../store/audit-repository.js';
import {
  auditEntrySchema,
  chainHash,
  canonicalJson,
  hashText,
  type AuditChannel,
  type AuditEntry,
  type AuditEvent,
  type ChainedEntry,
} from './audit-entry.js';

/**
 * The audit log of a deployment (DESIGN "Audit log"): one hash chain in Redis that every process
 * appends to. Entries recorded in one turn of the event loop travel together (one round trip);
 * an append is a compare-and-set on the chain's head, so a batch computed against a head another
 * process has moved is computed again, never written out of order. Recording never fails the
 * action it records: a store error is logged. Text goes through the redactor first, and each
 * string is cut, so no secret value or flood of text enters the log.
 */
export interface AuditLog {
  /** Appends one entry; resolves once it is stored (or its failure logged). */
  record(event: AuditEvent): Promise<void>;
  list(query: AuditQuery): Promise<AuditPage>;
  /** Walks the whole chain; names the first entry that is missing or altered. */
  verify(): Promise<AuditVerdict>;
  /** Drops entries older than `retentionMs`; the rest still verifies. */
  prune(retentionMs: number): Promise<number>;
}

export interface AuditQuery {
  /** `script` matches `script.approve`, `script.update`…; a full action matches itself. */
  action?: string;
  actor?: string;
  channel?: AuditChannel;
  /** Exactly this target: a script name, a schedule id… */
  target?: string;
  since?: Date;
  until?: Date;
  limit?: number;
  /** The `next_cursor` of the page before: entries older than it. */
  cursor?: string;
}

export interface AuditPage {
  entries: AuditEntry[];
  next_cursor: string | null;
}

export type AuditVerdict =
  { ok: true; entries: number } | { ok: false; entries: number; id: string; problem: string };

export interface AuditLogDeps {
  repo: AuditRepository;
  redact: (text: string) => string;
  log: Logger;
  now?: () => Date;
}

/** Longest string kept in `details`, after redaction. */
export const maxDetailChars = 500;
const maxPageSize = 200;
/** Entries a filtered page reads at most before it answers with what it found. */
const maxScanned = 10_000;

export function createAuditLog({
  repo,
  redact,
  log,
  now = () => new Date(),
}: AuditLogDeps): AuditLog {
  let pending: Array<{ entry: Omit<ChainedEntry, 'prev'>; done: () => void }> = [];
  let scheduled = false;
  /** The head as this process last saw it: usually right, and the append checks it anyway. */
  let head: string | null = null;

  const clean = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const redacted = redact(value);
      return redacted.length > maxDetailChars
        ? `${redacted.slice(0, maxDetailChars)}… (${redacted.length} characters)`
        : redacted;
    }
    if (Array.isArray(value)) return value.map(clean);
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clean(v)]));
    }
    return value;
  };

  async function flush(): Promise<void> {
    while (pending.length > 0) {
      const batch = pending.slice(0, 100);
      pending = pending.slice(batch.length);
      try {
        for (let attempt = 0; ; attempt++) {
          const expected = head ?? (await repo.head());
          let prev = expected;
          const chained = batch.map(({ entry }) => {
            const full: ChainedEntry = { ...entry, prev };
            prev = chainHash(full);
            return { json: canonicalJson(full), hash: prev };
          });
          const ids = await repo.append(expected, chained);
          if (ids !== null) {
            head = prev;
            break;
          }
          head = null;
          if (attempt >= 50) throw new Error('the audit chain head kept moving');
        }
      } catch (err) {
        head = null;
        log.error(
          { err, actions: batch.map((b) => b.entry.action) },
          'could not append to the audit log',
        );
      }
      for (const { done } of batch) done();
    }
  }

  function record(event: AuditEvent): Promise<void> {
    const entry = {
      at: now().toISOString(),
      actor: redact(event.actor),
      channel: event.channel,
      action: event.action,
      target: redact(event.target),
      outcome: event.outcome ?? 'ok',
      details: clean(event.details ?? {}) as Record<string, unknown>,
    };
    return new Promise<void>((resolve) => {
      pending.push({ entry, done: resolve });
      schedule();
    });
  }

  /** Everything recorded in this turn goes in one append; what comes meanwhile, in the next. */
  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      void flush().finally(() => {
        scheduled = false;
        if (pending.length > 0) schedule();
      });
    });
  }

  function decode(stored: StoredAuditEntry): AuditEntry | null {
    try {
      const parsed = auditEntrySchema.safeParse({
        ...(JSON.parse(stored.json) as object),
        id: stored.id,
        hash: stored.hash,
      });
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  const matches = (entry: AuditEntry, q: AuditQuery) =>
    (q.action === undefined ||
      entry.action === q.action ||
      entry.action.startsWith(`${q.action}.`)) &&
    (q.actor === undefined || entry.actor === q.actor) &&
    (q.channel === undefined || entry.channel === q.channel) &&
    (q.target === undefined || entry.target === q.target);

  return {
    record,

    async list(q) {
      const limit = Math.min(Math.max(q.limit ?? 50, 1), maxPageSize);
      const floor = q.since ? `${q.since.getTime()}-0` : '-';
      let before = q.cursor ?? (q.until ? `${q.until.getTime() + 1}-0` : '+');
      const found: AuditEntry[] = [];
      let scanned = 0;
      for (;;) {
        const page = await repo.backward(before, floor, 500);
        for (const stored of page) {
          scanned++;
          before = stored.id;
          const entry = decode(stored);
          if (entry && matches(entry, q)) found.push(entry);
          if (found.length === limit) {
            return { entries: found, next_cursor: stored.id };
          }
        }
        if (page.length < 500) return { entries: found, next_cursor: null };
        // A sparse filter over a long log answers part of the way, with where to go on.
        if (scanned >= maxScanned) return { entries: found, next_cursor: before };
      }
    },

    async verify() {
      let prev = await repo.anchor();
      let after = '-';
      let count = 0;
      let lastId = '';
      for (;;) {
        const page = await repo.forward(after, 1000);
        for (const stored of page) {
          count++;
          lastId = stored.id;
          let entryPrev: unknown;
          try {
            entryPrev = (JSON.parse(stored.json) as { prev?: unknown }).prev;
          } catch {
            entryPrev = undefined;
          }
          if (typeof entryPrev !== 'string') {
            return { ok: false, entries: count, id: stored.id, problem: 'it is not a valid entry' };
          }
          if (entryPrev !== prev) {
            return {
              ok: false,
              entries: count,
              id: stored.id,
              problem: 'the entry before it is missing or was altered',
            };
          }
          // The stored text is the canonical JSON the hash was computed over: hashing it as it
          // is checks every byte, without decoding and re-encoding each entry.
          if (hashText(prev, stored.json) !== stored.hash) {
            return { ok: false, entries: count, id: stored.id, problem: 'it was altered' };
          }
          prev = stored.hash;
        }
        if (page.length < 1000) break;
        after = lastId;
      }
      if ((await repo.head()) !== prev) {
        return {
          ok: false,
          entries: count,
          id: lastId || '(none)',
          problem: 'entries after it were removed',
        };
      }
      return { ok: true, entries: count };
    },

    prune: (retentionMs) => repo.prune(now().getTime() - retentionMs),
  };
}
