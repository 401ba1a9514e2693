import { diffLines, diffWordsWithSpace } from 'diff';

/** Part of a changed line: `changed` when it differs from the line it replaces. */
export interface Segment {
  text: string;
  changed: boolean;
}

export interface DiffLine<K extends 'same' | 'del' | 'add' = 'same' | 'del' | 'add'> {
  n: number;
  text: string;
  kind: K;
  /** For a line that replaces another: what changed within it. Absent when all of it did. */
  parts?: Segment[];
}

export interface DiffRow {
  left?: DiffLine<'same' | 'del'>;
  right?: DiffLine<'same' | 'add'>;
}

/** One line of a unified diff: its number in the old text, the new one, or both. */
export interface UnifiedLine {
  old?: number;
  new?: number;
  line: DiffLine;
}

function lines(text: string): string[] {
  const parts = text.split('\n');
  if (parts.at(-1) === '') parts.pop();
  return parts;
}

/**
 * The words (and spaces) a removed line and the added line beside it do not share. Null when
 * they share nothing but blanks: then the whole line changed and marking parts says nothing.
 */
export function lineChanges(
  before: string,
  after: string,
): { left: Segment[]; right: Segment[] } | null {
  const left: Segment[] = [];
  const right: Segment[] = [];
  let shared = false;
  for (const change of diffWordsWithSpace(before, after)) {
    if (!change.added) left.push({ text: change.value, changed: !!change.removed });
    if (!change.removed) right.push({ text: change.value, changed: !!change.added });
    if (!change.added && !change.removed && change.value.trim()) shared = true;
  }
  return shared ? { left, right } : null;
}

/** Rows of a side-by-side diff: removed and added runs next to each other, every line shown. */
export function diffRows(before: string, after: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let ln = 1;
  let rn = 1;
  const changes = diffLines(before, after);
  for (let i = 0; i < changes.length; i++) {
    const change = changes[i]!;
    if (!change.added && !change.removed) {
      for (const text of lines(change.value)) {
        rows.push({
          left: { n: ln++, text, kind: 'same' },
          right: { n: rn++, text, kind: 'same' },
        });
      }
      continue;
    }
    const removed = change.removed ? lines(change.value) : [];
    const next = changes[i + 1];
    let added: string[] = [];
    if (change.added) {
      added = lines(change.value);
    } else if (next?.added) {
      added = lines(next.value);
      i++;
    }
    for (let k = 0; k < Math.max(removed.length, added.length); k++) {
      const row: DiffRow = {};
      if (k < removed.length) row.left = { n: ln++, text: removed[k]!, kind: 'del' };
      if (k < added.length) row.right = { n: rn++, text: added[k]!, kind: 'add' };
      if (row.left && row.right) {
        const parts = lineChanges(row.left.text, row.right.text);
        if (parts) {
          row.left.parts = parts.left;
          row.right.parts = parts.right;
        }
      }
      rows.push(row);
    }
  }
  return rows;
}

/** The same rows one under the other, for a narrow screen: each changed run's removals first. */
export function unifiedRows(rows: DiffRow[]): UnifiedLine[] {
  const out: UnifiedLine[] = [];
  for (let i = 0; i < rows.length;) {
    const row = rows[i]!;
    if (row.left?.kind === 'same' && row.right) {
      out.push({ old: row.left.n, new: row.right.n, line: row.right });
      i++;
      continue;
    }
    const added: UnifiedLine[] = [];
    for (; i < rows.length && rows[i]!.left?.kind !== 'same'; i++) {
      const { left, right } = rows[i]!;
      if (left) out.push({ old: left.n, line: left });
      if (right) added.push({ new: right.n, line: right });
    }
    out.push(...added);
  }
  return out;
}
