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

/** Error and logs of a failed run, together within `limit` bytes (the error keeps some room). */
export function boundFailure(
  error: string,
  logs: readonly string[],
  limit: number,
): { error: string; logs: string[] } {
  const kept: string[] = [];
  // The error says why the run failed; it keeps at least a quarter of the limit.
  const logBudget = limit - Math.min(Buffer.byteLength(error, 'utf8'), Math.floor(limit / 4));
  let used = 0;
  for (const line of logs) {
    const size = Buffer.byteLength(line, 'utf8') + 1;
    if (used + size > logBudget) {
      kept.push(truncateUtf8(line, Math.max(0, logBudget - used)));
      used = logBudget;
      break;
    }
    kept.push(line);
    used += size;
  }
  return { error: truncateUtf8(error, Math.max(0, limit - used)), logs: kept };
}
