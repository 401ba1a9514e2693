/**
 * A failed run's error text and its logs share the run's output limit (`scripts.limits.
 * output_bytes`), like a successful run's result and logs do. Without it, `fail("x" * 45000000)`
 * or an error quoting a huge string travelled whole through the thread, Redis and the API (one
 * run took the API to 1.8 GB). Applied in the script thread, and again in the worker in case a
 * thread ever sends more.
 */

/** The first `maxBytes` of `text` (never splitting a character), with a visible marker if cut. */
export function truncateUtf8(text: string, maxBytes: number): string {
  // A JS string needs at least one byte per UTF-16 unit: short strings are within the limit.
  if (text.length <= maxBytes / 3) return text;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = Math.max(0, maxBytes);
  // Step back over UTF-8 continuation bytes so the cut lands on a character boundary.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return `${bytes.subarray(0, end).toString('utf8')}… [truncated: ${bytes.length - end} more bytes over the output limit]`;
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
  const logBytes = logs.reduce((n, line) => n + Buffer.byteLength(line, 'utf8') + 1, 0);
  const errorBytes = Buffer.byteLength(error, 'utf8');
  if (errorBytes + logBytes <= limit) return { error, logs: [...logs] };
  const errorBudget = Math.max(limit - logBytes, Math.floor(limit / 2), errorFloor);
  const kept = truncateUtf8(error, errorBudget);
  const logBudget = Math.max(0, limit - Math.min(errorBytes, errorBudget));
  const keptLogs: string[] = [];
  let used = 0;
  for (const line of logs) {
    const size = Buffer.byteLength(line, 'utf8') + 1;
    if (used + size > logBudget) {
      keptLogs.push(truncateUtf8(line, Math.max(0, logBudget - used)));
      break;
    }
    keptLogs.push(line);
    used += size;
  }
  return { error: kept, logs: keptLogs };
}
