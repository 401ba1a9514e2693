/** Zod schemas for the script routes: params, bodies and response shapes. */
import { z } from 'zod';
import { runResult } from '../../../queue/script-runs.js';

export const statusSchema = z.enum(['pending', 'approved', 'rejected']);

export const scriptListEntrySchema = z.object({
  name: z.string(),
  path: z.string(),
  hash: z.string(),
  status: statusSchema,
  description: z.string(),
  required_secrets: z.array(z.string()),
  approved_at: z.string().optional(),
  approved_by: z.string().optional(),
  created_at: z.string(),
  modified_at: z.string(),
});

export const scriptDetailSchema = z.object({
  name: z.string(),
  source: z.string(),
  hash: z.string(),
  status: statusSchema,
  metadata: z.object({
    description: z.string(),
    author: z.string(),
    version: z.string(),
    secrets: z.array(z.string()),
  }),
  execution_history: z.array(
    z.object({ timestamp: z.string(), success: z.boolean(), duration_ms: z.number().int() }),
  ),
});

export const versionEntrySchema = z.object({
  commit: z.string(),
  message: z.string(),
  author: z.string(),
  timestamp: z.string(),
});

export const changedSchema = z.object({ name: z.string(), status: statusSchema, hash: z.string() });

/** `POST /scripts/:name/test`: the run result, with `result` on success and `error` on failure. */
export const runResultSchema = z.union([
  runResult.omit({ error: true }).extend({ success: z.literal(true), result: z.unknown() }),
  runResult.omit({ result: true }).extend({ success: z.literal(false), error: z.string() }),
]);

export const nameParams = z.object({ name: z.string() });
export const commitParams = z.object({ name: z.string(), commit: z.string() });
export const createBody = z.object({ name: z.string(), source: z.string() });
export const updateBody = z.object({ source: z.string() });
export const approveBody = z.object({ hash: z.string().optional() }).nullish();
export const rejectBody = z.object({
  reason: z.string().trim().min(1, 'a reason is required'),
});
export const testBody = z
  .object({
    args: z.record(z.string(), z.unknown()).default({}),
    function: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a Starlark identifier')
      .optional(),
  })
  .nullish();
export const diffQuery = z.object({ from: z.string().optional(), to: z.string().optional() });
