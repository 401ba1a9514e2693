import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { auditChannels, auditEntrySchema } from '../../runtime/audit-entry.js';
import type { AuditLog } from '../../runtime/audit-log.js';

const isoTime = z.iso.datetime({ offset: true });

export const auditQuerySchema = z
  .object({
    /** An action (`script.approve`) or its area (`script`). */
    action: z.string().min(1).max(100).optional(),
    actor: z.string().min(1).max(200).optional(),
    channel: z.enum(auditChannels).optional(),
    /** Exactly this target: a script name, a schedule id, a secret name… */
    target: z.string().min(1).max(200).optional(),
    since: isoTime.optional(),
    until: isoTime.optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    /** The `next_cursor` of the page before. */
    cursor: z
      .string()
      .regex(/^\d{1,16}-\d{1,10}$/, 'cursor: a next_cursor from an earlier page')
      .optional(),
  })
  .strict();

export const auditPageSchema = z.object({
  entries: z.array(auditEntrySchema),
  /** Older entries follow: pass it as `cursor`. Null at the oldest. */
  next_cursor: z.string().nullable(),
});

/** `GET /api/audit`: the audit log, newest first, filtered, a page at a time. */
export const auditRoutes: FastifyPluginAsync<{ audit: Pick<AuditLog, 'list'> }> = async (
  app,
  { audit },
) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/audit',
    { schema: { querystring: auditQuerySchema, response: { 200: auditPageSchema } } },
    async (req) => {
      const { since, until, ...rest } = req.query;
      return audit.list({
        ...rest,
        ...(since ? { since: new Date(since) } : {}),
        ...(until ? { until: new Date(until) } : {}),
      });
    },
  );
};
