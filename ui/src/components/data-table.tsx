import { Table, type TableProps } from '@mantine/core';
import { useLayoutEffect, useRef, type ReactNode } from 'react';

/**
 * A table with one header row naming its `columns`; the children are its body rows. On a phone
 * each row becomes a card whose cells carry their column's name (app.css, `.data-table`): the
 * names are stamped on the cells here, so no page has to repeat them on every cell. Wider than
 * its box on a desktop, it scrolls inside its own frame rather than widening the page.
 */
export function DataTable({
  columns,
  children,
  className,
  ...props
}: TableProps & { columns: string[]; children: ReactNode }) {
  const table = useRef<HTMLTableElement>(null);
  const frame = useRef<HTMLDivElement>(null);

  // After every render: rows come and go with the data.
  useLayoutEffect(() => {
    for (const row of table.current?.tBodies[0]?.rows ?? []) {
      let column = 0;
      for (const cell of row.cells) {
        const label = columns[column] ?? '';
        if (cell.dataset.label !== label) cell.dataset.label = label;
        column += cell.colSpan;
      }
    }
    // A frame that scrolls must be reachable by keyboard to be scrolled (WCAG 2.1.1).
    const box = frame.current;
    if (box) box.tabIndex = box.scrollWidth > box.clientWidth ? 0 : -1;
  });

  return (
    <div className="table-frame" ref={frame}>
      <Table
        ref={table}
        className={className ? `data-table ${className}` : 'data-table'}
        {...props}
      >
        <Table.Thead>
          <Table.Tr>
            {columns.map((column, i) => (
              <Table.Th key={i}>{column}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>{children}</Table.Tbody>
      </Table>
    </div>
  );
}
