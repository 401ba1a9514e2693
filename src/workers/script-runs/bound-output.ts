/**
 * A failed run's error text and its logs share the run's output limit (`scripts.limits.
 * output_bytes`), like a successful run's result and logs do, counted as they are sent: JSON-
 * encoded (`encodedBytes`). Without it, `fail("x" * 45000000)`
 * or an error quoting a huge string travelled whole through the thread, Redis and the API (one
 * run took the API to 1.8 GB). Applied in the script thread, and again in the worker in case a
 * thread ever sends more.
 */

/**
 * Bytes `text` takes inside a JSON string: UTF-8, with JSON's escapes. That is what it costs in
 * an answer (the API's, the MCP result's, Redis's copy), so that is what the limit counts: by raw
 * characters, `fail(chr(1) * 400000)` stayed under a 1 MiB limit and answered 2.4 MB, each
 * control character escaped as `\u0001`.
 */
export function encodedBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text), 'utf8') - 2;
}

/** Encoded bytes of the character at `i` (a surrogate pair counts once, at its first half). */
function costAt(text: string, i: number): { bytes: number; units: number } {
  const c = text.charCodeAt(i);
  if (c < 0x20)
    return { bytes: c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6, units: 1 };
  if (c === 0x22 || c === 0x5c) return { bytes: 2, units: 1 };
  if (c < 0x80) return { bytes: 1, units: 1 };
  if (c < 0x800) return { bytes: 2, units: 1 };
  if (c >= 0xd800 && c <= 0xdbff) {
    const next = text.charCodeAt(i + 1);
    // A pair is 4 UTF-8 bytes; a lone half is escaped as \uXXXX.
    return next >= 0xdc00 && next <= 0xdfff ? { bytes: 4, units: 2 } : { bytes: 6, units: 1 };
  }
  if (c >= 0xdc00 && c <= 0xdfff) return { bytes: 6, units: 1 };
  return { bytes: 3, units: 1 };
}

/**
 * The longest start of `text` whose encoded size is within `maxBytes` (never splitting a
 * character), with a visible marker if cut.
 */
export function truncateEncoded(text: string, maxBytes: number): string {
  // A UTF-16 unit takes at most 6 encoded bytes: short strings are within the limit.
  if (text.length * 6 <= maxBytes) return text;
  const total = encodedBytes(text);
  if (total <= maxBytes) return text;
  let used = 0;
  let end = 0;
  // Stops within about `maxBytes` characters, however long the text.
  while (end < text.length) {
    const { bytes, units } = costAt(text, end);
    if (used + bytes > maxBytes) break;
    used += bytes;
    end += units;
  }
  return `${text.slice(0, end)}… [truncated: ${total - used} more bytes over the output limit]`;
}

/** An error keeps at least this much, whatever the logs took: it says why the run failed. */
const errorFloor = 1024;

/**
 * Error and logs of a failed run, together within `limit` bytes. The error is kept whole when
 * both fit; otherwise it gets what the logs leave, but at least half the limit (and at least
 * 1 KiB, so Steward's own reasons are never cut), and the logs give up their tail for it.
 */
export function boundFailure(
  error: string,
  logs: readonly string[],
  limit: number,
): { error: string; logs: string[] } {
  const logBytes = logs.reduce((n, line) => n + encodedBytes(line) + 1, 0);
  const errorBytes = encodedBytes(error);
  if (errorBytes + logBytes <= limit) return { error, logs: [...logs] };
  const errorBudget = Math.max(limit - logBytes, Math.floor(limit / 2), errorFloor);
  const kept = truncateEncoded(error, errorBudget);
  const logBudget = Math.max(0, limit - Math.min(errorBytes, errorBudget));
  const keptLogs: string[] = [];
  let used = 0;
  for (const line of logs) {
    const size = encodedBytes(line) + 1;
    if (used + size > logBudget) {
      keptLogs.push(truncateEncoded(line, Math.max(0, logBudget - used)));
      break;
    }
    keptLogs.push(line);
    used += size;
  }
  return { error: kept, logs: keptLogs };
}
