import { useMediaQuery } from '@mantine/hooks';
import { useMemo, type ReactNode } from 'react';
import { diffRows, unifiedRows, type DiffLine } from '../diff-rows';
import { visibleParts } from '../visible-text';

/** Invisible and bidirectional-control characters replaced by a visible, named mark. */
function Visible({ text }: { text: string }) {
  return (
    <>
      {visibleParts(text).map((part, i) =>
        typeof part === 'string' ? (
          part
        ) : (
          <mark key={i} className="hidden-char" title={`${part.code} ${part.name}`}>
            {part.code}
            <span className="visually-hidden"> ({part.name}, invisible)</span>
          </mark>
        ),
      )}
    </>
  );
}

function LineText({ line }: { line: DiffLine }): ReactNode {
  if (!line.parts) return <Visible text={line.text} />;
  return line.parts.map((p, i) =>
    p.changed ? (
      <mark key={i} className={`intraline ${line.kind}`}>
        <Visible text={p.text} />
      </mark>
    ) : (
      <Visible key={i} text={p.text} />
    ),
  );
}

const said = { del: 'removed: ', add: 'added: ', same: '' } as const;

/**
 * The approved text on the left, the text under review on the right; every line of the new text
 * is shown, since approving covers all of it. Changes within a line are marked, and characters a
 * reader cannot see are shown by name. At 600 px or less the same lines stack in one column.
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
  const narrow = useMediaQuery('(max-width: 600px)');
  const changed = rows.filter((r) => r.left?.kind !== 'same').length;
  if (narrow) {
    return (
      <div className="code-frame">
        <table
          className="diff-table unified"
          aria-label={`Changes, one column: ${changed} lines differ`}
        >
          <thead>
            <tr className="hunk">
              <th scope="col" className="num">
                <span className="visually-hidden">Line before</span>
              </th>
              <th scope="col" className="num">
                <span className="visually-hidden">Line after</span>
              </th>
              <th scope="col">
                − {beforeLabel} / + {afterLabel}
              </th>
            </tr>
          </thead>
          <tbody>
            {unifiedRows(rows).map((u, i) => (
              <tr key={i}>
                <td className="num">{u.old ?? ''}</td>
                <td className="num">{u.new ?? ''}</td>
                <td className={u.line.kind}>
                  <span aria-hidden="true" className="sign">
                    {u.line.kind === 'del' ? '−' : u.line.kind === 'add' ? '+' : ' '}
                  </span>
                  {said[u.line.kind] && (
                    <span className="visually-hidden">{said[u.line.kind]}</span>
                  )}
                  <LineText line={u.line} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    );
  }
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
                {row.left?.kind === 'del' && <span className="visually-hidden">removed: </span>}
                {row.left && <LineText line={row.left} />}
              </td>
              <td className="num">{row.right?.n ?? ''}</td>
              <td className={row.right ? row.right.kind : 'empty'}>
                {row.right?.kind === 'add' && <span className="visually-hidden">added: </span>}
                {row.right && <LineText line={row.right} />}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
