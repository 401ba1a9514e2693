import { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import { backupFileName } from '../../backup/backup-format.js';
import type { AuditLog } from '../../runtime/audit-log.js';

export interface BackupRouteOptions {
  /** The lines of a new backup (`src/backup/create-backup.ts`), the snapshot taken at the first. */
  backup(): AsyncIterable<string>;
  audit: Pick<AuditLog, 'record'>;
}

/**
 * `GET /api/backup`: the same file `steward backup` writes, streamed as it is made (the
 * dashboard's "Download a backup"). The first line is made before the answer starts, so a backup
 * that cannot be taken is an error answer rather than a broken download; a failure later (the
 * audit log pruned meanwhile) cuts the download short, and a file without its HMAC line never
 * restores.
 */
export const backupRoutes: FastifyPluginAsync<BackupRouteOptions> = async (app, options) => {
  app.get(
    '/backup',
    {
      // The body is a stream of the file's bytes, never serialised; the schema documents it.
      serializerCompiler: () => (data) => JSON.stringify(data),
      schema: {
        summary: 'Download a backup',
        description:
          'Every Steward key under the prefix at one point in time, as JSON lines sealed with an HMAC under the secrets key (secrets only as ciphertexts). Restore it with `steward restore FILE` on a deployment with the same secrets key.',
        response: {
          200: {
            description: 'The backup file (`steward-backup-<time>.jsonl`)',
            content: {
              'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
            },
          },
        },
      },
    },
    async (req, reply) => {
      const lines = options.backup()[Symbol.asyncIterator]();
      const first = await lines.next();
      void options.audit.record({
        actor: req.user?.username ?? 'admin',
        channel: 'api',
        action: 'backup.download',
        target: 'store',
      });
      const body = Readable.from(
        (async function* () {
          if (first.done) return;
          yield first.value;
          for (let next = await lines.next(); !next.done; next = await lines.next()) {
            yield next.value;
          }
        })(),
      );
      return reply
        .type('application/octet-stream')
        .header('content-disposition', `attachment; filename="${backupFileName(new Date())}"`)
        .header('cache-control', 'no-store')
        .send(body);
    },
  );
};
