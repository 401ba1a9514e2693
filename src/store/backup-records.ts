import { z } from 'zod';

/** Bytes as Redis holds them: text when they are UTF-8, else base64. */
export const storedBytesSchema = z.union([z.string(), z.strictObject({ base64: z.string() })]);
export type StoredBytes = z.infer<typeof storedBytesSchema>;

const common = {
  /** Relative to the deployment prefix. */
  key: z.string().min(1),
  /** When the key expires, in ms on Redis's clock; null when it does not. */
  expire_at_ms: z.number().int().positive().nullable(),
};
/** One key of a snapshot, with its whole value. */
export const keyRecordSchema = z.discriminatedUnion('type', [
  z.strictObject({ ...common, type: z.literal('string'), value: storedBytesSchema }),
  z.strictObject({
    ...common,
    type: z.literal('hash'),
    value: z.array(z.tuple([storedBytesSchema, storedBytesSchema])),
  }),
  z.strictObject({ ...common, type: z.literal('list'), value: z.array(storedBytesSchema) }),
  z.strictObject({ ...common, type: z.literal('set'), value: z.array(storedBytesSchema) }),
  z.strictObject({
    ...common,
    type: z.literal('zset'),
    // The score as Redis prints it (`inf` included), so it comes back exactly.
    value: z.array(z.tuple([storedBytesSchema, z.string()])),
  }),
]);
export type KeyRecord = z.infer<typeof keyRecordSchema>;
