import { structuredPatch } from 'diff';

/**
 * Unified-diff hunks (`@@ -a,b +c,d @@` then the lines) without file headers: the endpoint
 * answers about one script, so the `---`/`+++` lines would carry nothing.
 */
export function unifiedDiff(name: string, from: string, to: string): string {
  const patch = structuredPatch(name, name, from, to, '', '', { context: 3 });
  const out: string[] = [];
  for (const hunk of patch.hunks) {
    // An empty side starts at line 0 in the unified format (GNU diff, git); structuredPatch
    // numbers it 1, which patch tools read as "after line 1".
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
    out.push(`@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`);
    out.push(...hunk.lines);
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}
