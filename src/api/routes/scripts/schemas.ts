/**
 * Zod schemas for the script routes: params and bodies, and the responses that are not the
 * domain's own resources, each derived from `src/scripts/script-schema.ts`.
 */
import { z } from 'zod';
import { scriptHashPattern } from '../../../contracts/script-hashes.js';
import { scriptListEntrySchema } from '../../../scripts/script-schema.js';
import { scriptNameSchema } from '../../../contracts/script-names.js';
import {
  scriptRecordSchema,
  versionEntrySchema,
  versionRecordSchema,
} from '../../../contracts/script-record.js';
import { runAnswer } from '../../../queue/script-runs.js';

export const scriptListSchema = z.object({ scripts: z.array(scriptListEntrySchema) });

export const changedSchema = scriptRecordSchema.pick({ name: true, status: true, hash: true });

export const approvedSchema = scriptRecordSchema
  .pick({ name: true, status: true, approved_at: true, approved_by: true })
  .required()
  .extend({ status: z.literal('approved') });

export const rejectedSchema = scriptRecordSchema
  .pick({ name: true, status: true, rejected_at: true, rejected_by: true, reason: true })
  .required()
  .extend({ status: z.literal('rejected') });

export const restoredSchema = scriptRecordSchema
  .pick({ name: true, status: true })
  .extend({ restored_from: versionEntrySchema.shape.commit });

export const versionListSchema = z.object({ versions: z.array(versionEntrySchema) });

export const versionSourceSchema = versionRecordSchema.pick({ commit: true, source: true });

export const diffSchema = z.object({ diff: z.string() });

/** `POST /scripts/:name/test`: the run result, with `result` on success and `error` on failure. */
export const runResultSchema = runAnswer;

/** Every `:name` is checked against the domain rule: a bad name is 400, not a lookup. */
export const nameParams = z.object({ name: scriptNameSchema });
export const commitParams = z.object({ name: scriptNameSchema, commit: z.string() });
export const createBody = z.object({ name: scriptNameSchema, source: z.string() });
export const updateBody = z.object({ source: z.string() });
export const approveBody = z
  .object({
    hash: z
      .string()
      .regex(scriptHashPattern, 'must be "sha256:" followed by 64 lowercase hex digits')
      .optional(),
  })
  .nullish();
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
