import { AppError, badRequest, isAppError } from '../errors/catalogue.js';
import type { Logger } from '../log/logger.js';
import type { FileMirror } from './file-mirror.js';
import { hashSource } from './hashing.js';
import {
  isScriptName,
  maxSourceBytes,
  scriptNameMessage,
  type ScriptRecord,
} from './script-schema.js';
import type { ScriptStore } from './script-store.js';
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
  store: ScriptStore;
  mirror: FileMirror;
  log: Logger;
}

const fromDisk = { author: 'filesystem', message: 'imported from filesystem' };

/**
 * Every change to scripts, whoever makes it (API, tools, the disk import): checks the name, size
 * and syntax, writes Redis (the record of truth) and then the file mirror.
 */
export function createScriptService({ store, mirror, log }: ScriptServiceDeps) {
  function checkName(name: string): void {
    if (!isScriptName(name)) {
      throw badRequest(scriptNameMessage(name));
    }
  }

  function checkSource(name: string, source: string): void {
    if (Buffer.byteLength(source, 'utf8') > maxSourceBytes) {
      throw new AppError(
        'payload_too_large',
        `script source is larger than ${maxSourceBytes} bytes`,
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

    async create(name: string, source: string, author: string, message = 'created') {
      checkName(name);
      checkSource(name, source);
      const record = await store.create(name, source, { author, message });
      await mirrorWrite(record);
      return record;
    },

    async update(name: string, source: string, author: string, message = 'updated') {
      checkName(name);
      await store.mustGet(name);
      checkSource(name, source);
      const record = await store.update(name, source, { author, message });
      await mirrorWrite(record);
      return record;
    },

    async restore(name: string, commit: string, author: string) {
      const record = await store.restore(name, commit, author);
      await mirrorWrite(record);
      return record;
    },

    async remove(name: string): Promise<void> {
      await store.remove(name);
      try {
        await mirror.remove(name);
      } catch (err) {
        log.warn({ err, script: name }, 'could not remove the script file mirror');
      }
    },

    /**
     * Imports files that differ from the store as new pending versions (author `filesystem`),
     * and writes back scripts whose file is missing. Invalid files are reported, not imported.
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
      for (const file of scan.files) {
        onDisk.add(file.name);
        const problem = findSyntaxError(file.name, file.source);
        try {
          const current = await store.get(file.name);
          if (current && current.hash === hashSource(file.source)) {
            report.unchanged.push(file.name);
            continue;
          }
          if (problem) {
            report.errors.push({ name: file.name, message: problem.message });
            continue;
          }
          // Another process may import the same file at the same moment (every role reloads
          // at start): the store re-checks under the script's lock, so it lands once.
          if (current) {
            await store.update(file.name, file.source, fromDisk, true);
            report.updated.push(file.name);
          } else {
            try {
              await store.create(file.name, file.source, fromDisk);
              report.created.push(file.name);
            } catch (err) {
              if (!isAppError(err) || err.code !== 'conflict') throw err;
              await store.update(file.name, file.source, fromDisk, true);
              report.updated.push(file.name);
            }
          }
        } catch (err) {
          report.errors.push({ name: file.name, message: (err as Error).message });
        }
      }
      for (const name of await store.names()) {
        if (onDisk.has(name)) continue;
        const record = await store.get(name);
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
