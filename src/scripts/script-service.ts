import { BadRequestError, ConflictError, NotFoundError } from '../errors/request-errors.js';
import { ScriptNotFoundError } from '../errors/script-errors.js';
import type { Logger } from '../log/logger.js';
import type { ScriptRepository } from '../store/script-repository.js';
import { AppError } from '../errors/catalogue.js';
import type { AuditChannel } from '../runtime/audit-entry.js';
import type { AuditLog } from '../runtime/audit-log.js';
import type { ApprovalSigner } from './approval-signature.js';
import type { FileMirror } from './file-mirror.js';
import type { ScriptChange, ScriptEvents } from './script-events.js';
import { hashSource, newCommitId } from '../contracts/script-hashes.js';
import { isScriptName, maxSourceBytes, scriptNameMessage } from '../contracts/script-names.js';
import {
  type ChangeAuthor,
  type ScriptRecord,
  type VersionRecord,
} from '../contracts/script-record.js';
import { approved, created, modified, rejected } from './script-transitions.js';
import { findSyntaxError, assertParses } from './syntax-check.js';

export interface ReloadReport {
  /** New scripts found on disk, now pending. */
  created: string[];
  /** Files that differed from the store, imported as new pending versions. */
  updated: string[];
  unchanged: string[];
  /** Scripts of the store that had no file, written back to disk. */
  written: string[];
  /** Files not imported, with the reason (bad name, too large, syntax error). */
  errors: Array<{ name: string; message: string }>;
}

export interface ScriptServiceDeps {
  store: ScriptRepository;
  mirror: FileMirror;
  log: Logger;
  /** Signs each approval with the key kept outside Redis (`approval-signature.ts`). */
  signer: ApprovalSigner;
  /** Every change, and every refused one, goes to the audit log with its hash and channel. */
  trail: Pick<AuditLog, 'record'>;
  /** Where each stored change is published (a version became pending, a decision was made). */
  events?: Pick<ScriptEvents, 'publish'>;
  /**
   * Told of each script this process writes or removes, as the write commits: the checks this
   * process noted of it (`recent-checks.ts`) no longer hold.
   */
  forget?: (name: string) => void;
  /** Clock for timestamps (tests may pin it). */
  now?: () => Date;
}

const fromDisk = { author: 'filesystem', message: 'imported from filesystem' };
/** A file whose text is the one the tool server last wrote there: the AI wrote it. */
const fromTool = {
  author: 'mcp',
  message: 'written by the AI (workspace_write), imported from the scripts directory',
};

/** A text as it reads back from a UTF-8 file (a lone surrogate becomes U+FFFD). */
const asWritten = (text: string) => Buffer.from(text, 'utf8').toString('utf8');

/**
 * Every change to scripts, whoever makes it (API, tools, the disk import): checks the name, size
 * and syntax, applies the review rules (`script-transitions.ts`) under the script's lock, writes
 * Redis (the record of truth) in one commit and then the file mirror.
 */
export function createScriptService({
  store,
  mirror,
  log,
  signer,
  trail,
  events,
  forget = () => {},
  now = () => new Date(),
}: ScriptServiceDeps) {
  const stamp = () => now().toISOString();

  /**
   * Runs a change and records it: its hash and version when done, its error code when refused
   * (a rule said no) or failed. The channel follows the author unless the caller names it: the
   * tool server's author is `mcp`, the disk import's `filesystem`.
   */
  async function recorded<T extends ScriptRecord | void>(
    action: string,
    name: string,
    who: { actor: string; via?: AuditChannel | undefined },
    change: () => Promise<T>,
    details: Record<string, unknown> = {},
  ): Promise<T> {
    const channel =
      who.via ?? (who.actor === 'mcp' ? 'mcp' : who.actor === 'filesystem' ? 'system' : 'api');
    const entry = { actor: who.actor, channel, action, target: name };
    try {
      const result = await change();
      const record = result as ScriptRecord | undefined;
      await trail.record({
        ...entry,
        details: record ? { ...details, hash: record.hash, commit: record.head } : details,
      });
      return result;
    } catch (err) {
      const refused = err instanceof AppError && err.status < 500 && err.status !== 400;
      await trail.record({
        ...entry,
        outcome: refused ? 'refused' : 'failed',
        details: {
          ...details,
          error: err instanceof AppError ? err.code : 'internal_error',
          message: (err as Error).message,
        },
      });
      throw err;
    }
  }
  const commitRecord = async (record: ScriptRecord, version?: VersionRecord) => {
    await store.commit(record, version);
    forget(record.name);
  };

  async function tell(change: ScriptChange): Promise<void> {
    await events?.publish(change, (err) =>
      log.warn({ err, script: change.record.name }, 'a follower of script changes failed'),
    );
  }
  const pendingNow = async (record: ScriptRecord) => {
    if (record.status === 'pending') await tell({ kind: 'pending', record });
  };

  async function mustGet(name: string): Promise<ScriptRecord> {
    const record = await store.get(name);
    if (!record) throw new ScriptNotFoundError(name);
    return record;
  }

  async function newVersion(name: string, source: string, who: ChangeAuthor) {
    let commitId = newCommitId();
    // 160 random bits never collide in practice; the check makes uniqueness a fact, not a hope.
    while (await store.versionExists(name, commitId)) commitId = newCommitId();
    const version: VersionRecord = {
      commit: commitId,
      message: who.message,
      author: who.author,
      timestamp: stamp(),
      source,
      hash: hashSource(source),
    };
    return version;
  }

  function createRecord(name: string, source: string, who: ChangeAuthor): Promise<ScriptRecord> {
    return store.withLock(name, async () => {
      if (await store.exists(name)) throw new ConflictError(`script ${name} already exists`);
      const v = await newVersion(name, source, who);
      const record = created(name, v);
      await commitRecord(record, v);
      return record;
    });
  }

  /** With `onlyIfChanged`, a source equal to the current one adds no version (disk imports). */
  function updateRecord(
    name: string,
    source: string,
    who: ChangeAuthor,
    onlyIfChanged = false,
  ): Promise<ScriptRecord> {
    return store.withLock(name, async () => {
      const current = await mustGet(name);
      if (onlyIfChanged && current.hash === hashSource(source)) return current;
      const v = await newVersion(name, source, who);
      const next = modified(current, v);
      await commitRecord(next, v);
      return next;
    });
  }

  /** A new version whose source is that of `commit`, pending again. */
  function restoreRecord(name: string, commit: string, author: string): Promise<ScriptRecord> {
    return store.withLock(name, async () => {
      const current = await mustGet(name);
      const old = await store.version(name, commit);
      if (!old) throw new NotFoundError(`script ${name} has no version ${commit}`);
      const v = await newVersion(name, old.source, { author, message: `restored from ${commit}` });
      const next = modified(current, v);
      await commitRecord(next, v);
      return next;
    });
  }

  function checkName(name: string): void {
    if (!isScriptName(name)) {
      throw new BadRequestError(scriptNameMessage(name));
    }
  }

  function checkSource(name: string, source: string): void {
    if (Buffer.byteLength(source, 'utf8') > maxSourceBytes) {
      throw new BadRequestError(
        `source: must be at most ${maxSourceBytes} bytes (256 KiB), got ${Buffer.byteLength(source, 'utf8')}`,
      );
    }
    assertParses(name, source);
  }

  async function mirrorWrite(record: ScriptRecord): Promise<void> {
    try {
      await mirror.write(record.name, record.source);
    } catch (err) {
      // Redis holds the script; a missing mirror file is rewritten by the next reload.
      log.warn({ err, script: record.name }, 'could not write the script file mirror');
    }
  }

  return {
    store,
    mirror,
    get: store.get,
    list: store.list,
    version: store.version,
    executionHistory: store.executionHistory,
    mustGet,

    /**
     * The newest version whose text the last approval covered: what a review compares a pending
     * text against. Null when the script was never approved (or rejected since).
     */
    async approvedVersion(record: ScriptRecord): Promise<VersionRecord | null> {
      if (!record.approved_hash) return null;
      for (const entry of await store.versions(record.name)) {
        const found = await store.version(record.name, entry.commit);
        if (found?.hash === record.approved_hash) return found;
      }
      return null;
    },

    /** Newest first. */
    async versions(name: string) {
      await mustGet(name);
      return store.versions(name);
    },

    async create(
      name: string,
      source: string,
      author: string,
      message = 'created',
      via?: AuditChannel,
    ) {
      const record = await recorded('script.create', name, { actor: author, via }, async () => {
        checkName(name);
        checkSource(name, source);
        return createRecord(name, source, { author, message });
      });
      await mirrorWrite(record);
      await pendingNow(record);
      return record;
    },

    async update(
      name: string,
      source: string,
      author: string,
      message = 'updated',
      via?: AuditChannel,
    ) {
      const record = await recorded('script.update', name, { actor: author, via }, async () => {
        checkName(name);
        await mustGet(name);
        checkSource(name, source);
        return updateRecord(name, source, { author, message });
      });
      await mirrorWrite(record);
      await pendingNow(record);
      return record;
    },

    /** A new version whose source is that of `commit`; pending again. */
    async restore(name: string, commit: string, author: string, via?: AuditChannel) {
      const who = { actor: author, via };
      const record = await recorded(
        'script.restore',
        name,
        who,
        () => restoreRecord(name, commit, author),
        {
          from: commit,
        },
      );
      await mirrorWrite(record);
      await pendingNow(record);
      return record;
    },

    /** Approves the current hash; `expectedHash` guards against approving a text not reviewed. */
    async approve(
      name: string,
      by: string,
      expectedHash?: string,
      via?: AuditChannel,
    ): Promise<ScriptRecord> {
      let changed = false;
      const record = await recorded(
        'script.approve',
        name,
        { actor: by, via },
        () =>
          store.withLock(name, async () => {
            const current = await mustGet(name);
            const holds = (r: ScriptRecord) => signer.check(r) === null;
            const next = approved(current, by, stamp(), expectedHash, holds);
            changed = next !== current;
            if (!changed) return next;
            const signed = { ...next, approval_sig: signer.sign(next) };
            await commitRecord(signed);
            return signed;
          }),
        expectedHash !== undefined ? { reviewed_hash: expectedHash } : {},
      );
      if (changed) await tell({ kind: 'approved', record, by });
      return record;
    },

    /** `expectedHash`, as for approve: a reason given for one text never rejects another. */
    async reject(
      name: string,
      by: string,
      reason: string,
      expectedHash?: string,
      via?: AuditChannel,
    ): Promise<ScriptRecord> {
      const record = await recorded(
        'script.reject',
        name,
        { actor: by, via },
        () =>
          store.withLock(name, async () => {
            const next = rejected(await mustGet(name), by, stamp(), reason, expectedHash);
            await commitRecord(next);
            return next;
          }),
        { reason },
      );
      await tell({ kind: 'rejected', record, by });
      return record;
    },

    async remove(name: string, by = 'admin', via?: AuditChannel): Promise<void> {
      await recorded('script.delete', name, { actor: by, via }, () =>
        store.withLock(name, async () => {
          await mustGet(name);
          await store.remove(name);
          forget(name);
        }),
      );
      try {
        await mirror.remove(name);
      } catch (err) {
        log.warn({ err, script: name }, 'could not remove the script file mirror');
      }
    },

    /**
     * Notes that the tool server is writing `source` to the script's file (`workspace_write`),
     * before it writes: an import of that file then records the AI as its author. Kept as the
     * hash of the text, so a file changed afterwards by other hands no longer matches it.
     */
    async noteToolWrite(name: string, source: string): Promise<void> {
      await store.noteToolWrite(name, hashSource(asWritten(source)));
    },

    /**
     * Imports files that differ from the store as new pending versions (author `filesystem`, or
     * `mcp` when the file holds the text the tool server last wrote there), and writes back
     * scripts whose file is missing. Invalid files are reported, not imported.
     */
    async reloadFromDisk(): Promise<ReloadReport> {
      const report: ReloadReport = {
        created: [],
        updated: [],
        unchanged: [],
        written: [],
        errors: [],
      };
      const scan = await mirror.scan();
      report.errors.push(...scan.skipped);
      // A file we could not read still exists: it must not be overwritten from the store.
      const onDisk = new Set<string>(scan.skipped.map((s) => s.name));
      // Every role reloads at start: the records are asked for together (one pipelined write,
      // not a round trip per file), and only a file that differs from its record is parsed.
      const records = await Promise.allSettled(scan.files.map((file) => store.get(file.name)));
      const toolWrites = await store.toolWrites(scan.files.map((file) => file.name));
      for (const [i, file] of scan.files.entries()) {
        onDisk.add(file.name);
        try {
          const read = records[i]!;
          if (read.status === 'rejected') throw read.reason;
          const current = read.value;
          if (current && current.hash === hashSource(file.source)) {
            report.unchanged.push(file.name);
            continue;
          }
          const problem = findSyntaxError(file.name, file.source);
          if (problem) {
            report.errors.push({ name: file.name, message: problem.message });
            continue;
          }
          const who = toolWrites[i] === hashSource(file.source) ? fromTool : fromDisk;
          // Another process may import the same file at the same moment (every role reloads
          // at start): the store re-checks under the script's lock, so it lands once.
          const imported = async (record: ScriptRecord) => {
            // A file another process imported first comes back unchanged: recorded once.
            if (record.head !== current?.head) {
              await trail.record({
                actor: who.author,
                channel: who === fromTool ? 'mcp' : 'system',
                action: 'script.import',
                target: file.name,
                details: { hash: record.hash, commit: record.head },
              });
            }
            await pendingNow(record);
          };
          if (current) {
            await imported(await updateRecord(file.name, file.source, who, true));
            report.updated.push(file.name);
          } else {
            try {
              await imported(await createRecord(file.name, file.source, who));
              report.created.push(file.name);
            } catch (err) {
              if (!(err instanceof ConflictError)) throw err;
              await imported(await updateRecord(file.name, file.source, who, true));
              report.updated.push(file.name);
            }
          }
        } catch (err) {
          report.errors.push({ name: file.name, message: (err as Error).message });
        }
      }
      const missing = (await store.names()).filter((name) => !onDisk.has(name));
      const stored = await Promise.all(missing.map((name) => store.get(name)));
      for (const [i, name] of missing.entries()) {
        const record = stored[i];
        if (!record) continue;
        await mirrorWrite(record);
        report.written.push(name);
      }
      if (report.created.length + report.updated.length + report.errors.length > 0) {
        log.info(
          {
            created: report.created,
            updated: report.updated,
            errors: report.errors,
          },
          'scripts imported from disk',
        );
      }
      return report;
    },
  };
}

export type ScriptService = ReturnType<typeof createScriptService>;
