import { diffLines } from 'diff';
import { useMemo } from 'react';

interface Row {
  left?: { n: number; text: string; kind: 'same' | 'del' };
  right?: { n: number; text: string; kind: 'same' | 'add' };
}

function lines(text: string): string[] {
  const parts = text.split('\n');
  if (parts.at(-1) === '') parts.pop();
  return parts;
}

/** Rows of a side-by-side diff: removed and added runs next to each other, every line shown. */
export function diffRows(before: string, after: string): Row[] {
  const rows: Row[] = [];
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
      const row: Row = {};
      if (k < removed.length) row.left = { n: ln++, text: removed[k]!, kind: 'del' };
      if (k < added.length) row.right = { n: rn++, text: added[k]!, kind: 'add' };
      rows.push(row);
    }
  }
  return rows;
}

/**
 * The approved text on the left, the text under review on the right; every line of the new text
 * is shown, since approving covers all of it.
 */
export function SideBySideDiff({
  before,
  after,
  beforeLabel,
  afterLabel,
}: {
  before: string;
  after: string;
  beforeLabel: string;
  afterLabel: string;
}) {
  const rows = useMemo(() => diffRows(before, after), [before, after]);
  const changed = rows.filter((r) => r.left?.kind !== 'same').length;
  return (
    <div className="code-frame">
      <table className="diff-table" aria-label={`Changes: ${changed} lines differ`}>
        <thead>
          <tr className="hunk">
            <th scope="col" className="num">
              <span className="visually-hidden">Line</span>
            </th>
            <th scope="col">{beforeLabel}</th>
            <th scope="col" className="num">
              <span className="visually-hidden">Line</span>
            </th>
            <th scope="col">{afterLabel}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={i}>
              <td className="num">{row.left?.n ?? ''}</td>
              <td className={row.left ? row.left.kind : 'empty'}>
                {row.left && row.left.kind === 'del' && (
                  <span className="visually-hidden">removed: </span>
                )}
                {row.left?.text ?? ''}
              </td>
              <td className="num">{row.right?.n ?? ''}</td>
              <td className={row.right ? row.right.kind : 'empty'}>
                {row.right && row.right.kind === 'add' && (
                  <span className="visually-hidden">added: </span>
                )}
                {row.right?.text ?? ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
