import { Table, type TableProps } from '@mantine/core';
import type { ReactNode } from 'react';

/** A table with one header row naming its `columns`; the children are its body rows. */
export function DataTable({
  columns,
  children,
  ...props
}: TableProps & { columns: string[]; children: ReactNode }) {
  return (
    <Table {...props}>
      <Table.Thead>
        <Table.Tr>
          {columns.map((column, i) => (
            <Table.Th key={i}>{column}</Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>{children}</Table.Tbody>
    </Table>
  );
}
