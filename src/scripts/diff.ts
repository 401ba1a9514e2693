import { structuredPatch } from 'diff';

/**
 * Unified-diff hunks (`@@ -a,b +c,d @@` then the lines) without file headers: the endpoint
 * answers about one script, so the `---`/`+++` lines would carry nothing.
 */
export function unifiedDiff(name: string, from: string, to: string): string {
  const patch = structuredPatch(name, name, from, to, '', '', { context: 3 });
  const out: string[] = [];
  for (const hunk of patch.hunks) {
    out.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    out.push(...hunk.lines);
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}
