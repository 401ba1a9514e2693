import { z } from 'zod';
import {
  executionEntrySchema,
  scriptMetadataSchema,
  scriptRecordSchema,
} from '../contracts/script-record.js';

/*
 * The script views of the API, derived from the stored record (`src/contracts/script-record.ts`).
 * The admin UI still takes two record types from here until it reads the OpenAPI document.
 */
export { versionEntrySchema, type ScriptStatus } from '../contracts/script-record.js';

const record = scriptRecordSchema.shape;

/** SPEC "Script (list entry)": `GET /api/scripts`. Field order is the order of the body. */
export const scriptListEntrySchema = z.object({
  name: record.name,
  path: z.string(),
  hash: record.hash,
  status: record.status,
  description: scriptMetadataSchema.shape.description,
  required_secrets: scriptMetadataSchema.shape.secrets,
  approved_at: record.approved_at,
  approved_by: record.approved_by,
  created_at: record.created_at,
  modified_at: record.modified_at,
});
export type ScriptListEntry = z.infer<typeof scriptListEntrySchema>;

/**
 * What a script can reach, for the person who approves it (`capabilities.ts` computes it from the
 * text): secrets with destinations and place, hosts of literal URLs, host modules, top-level
 * functions, and characters a reviewer cannot see.
 */
const hiddenCharacterSchema = z.object({
  line: z.number().int(),
  column: z.number().int(),
  /** `U+202E`. */
  code: z.string(),
  name: z.string(),
});

export const scriptCapabilitiesSchema = z.object({
  secrets: z.array(
    z.object({
      name: z.string(),
      /** Where it may be sent; empty when the header binds it nowhere. */
      destinations: z.array(z.string()),
      /** `header Authorization`, `url` or `body`; null when any place of a request will do. */
      placement: z.string().nullable(),
    }),
  ),
  /** Hosts (with a port when one is written) of the URLs written literally in the code. */
  hosts: z.array(z.string()),
  /** Host modules the code names: `http`, `secrets`, `hmac`, … */
  modules: z.array(z.string()),
  /** Functions defined at the top level (a run may call any of them by name). */
  functions: z.array(z.string()),
  hidden_characters: z.array(hiddenCharacterSchema),
});
export type ScriptCapabilities = z.infer<typeof scriptCapabilitiesSchema>;

/** SPEC "Script (detail)": `GET /api/scripts/:name`. */
export const scriptDetailSchema = scriptRecordSchema
  .pick({ name: true, source: true, hash: true, status: true })
  .extend({
    // The detail always says where each secret may go ({} when none is bound).
    metadata: scriptMetadataSchema.extend({
      secret_destinations: z.record(z.string(), z.array(z.string())),
    }),
    execution_history: z.array(executionEntrySchema),
    /** Beyond the spec, for review: who approved (when approved) or rejected and why. */
    approved_at: record.approved_at,
    approved_by: record.approved_by,
    /** The version the last approval covered, kept while a change is pending: a review's base. */
    approved_commit: z.string().optional(),
    rejected_at: record.rejected_at,
    rejected_by: record.rejected_by,
    reason: record.reason,
    capabilities: scriptCapabilitiesSchema,
    /** What the text can reach that the last approved version could not (absent without one). */
    new_capabilities: scriptCapabilitiesSchema.optional(),
  });
export type ScriptDetail = z.infer<typeof scriptDetailSchema>;
