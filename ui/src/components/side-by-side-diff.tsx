import { useMemo } from 'react';
import { diffRows } from '../diff-rows';

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
