import { diffLines } from 'diff';

export interface DiffRow {
  left?: { n: number; text: string; kind: 'same' | 'del' };
  right?: { n: number; text: string; kind: 'same' | 'add' };
}

function lines(text: string): string[] {
  const parts = text.split('\n');
  if (parts.at(-1) === '') parts.pop();
  return parts;
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
      rows.push(row);
    }
  }
  return rows;
}
