import { Anchor, Group, Pagination, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import type { ScriptListEntry } from '../api/types';
import { DataTable } from './data-table';
import { Empty } from './states';
import { When } from './time';

export const pendingPerPage = 10;

/**
 * The scripts waiting for review, oldest change first (the order "Approve and next" follows),
 * ten to a page: 86 pending once made the dashboard 6,600 px tall.
 */
export function PendingList({ scripts }: { scripts: ScriptListEntry[] }) {
  const [page, setPage] = useState(1);
  const pending = scripts
    .filter((s) => s.status === 'pending')
    .sort((a, b) => a.modified_at.localeCompare(b.modified_at) || a.name.localeCompare(b.name));
  if (pending.length === 0) return <Empty>No script waits for review.</Empty>;
  const pages = Math.ceil(pending.length / pendingPerPage);
  const current = Math.min(page, pages);
  const shown = pending.slice((current - 1) * pendingPerPage, current * pendingPerPage);
  return (
    <Stack gap="xs">
      <div className="table-scroll">
        <DataTable
          striped
          highlightOnHover
          columns={['Script', 'Description', 'Changed', 'Action']}
        >
          {shown.map((s) => (
            <Table.Tr key={s.name}>
              <Table.Td>
                <Anchor component={Link} to={`/scripts/${encodeURIComponent(s.name)}`}>
                  {s.name}
                </Anchor>
              </Table.Td>
              <Table.Td>{s.description || '—'}</Table.Td>
              <Table.Td>
                <When at={s.modified_at} />
              </Table.Td>
              <Table.Td>
                <Anchor
                  component={Link}
                  to={`/scripts/${encodeURIComponent(s.name)}/review`}
                  aria-label={`Review ${s.name}`}
                >
                  Review
                </Anchor>
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      </div>
      {pages > 1 && (
        <Group justify="space-between" wrap="wrap">
          <Text size="sm" c="dimmed">
            {pending.length} waiting; {(current - 1) * pendingPerPage + 1}–
            {(current - 1) * pendingPerPage + shown.length} shown
          </Text>
          <Pagination
            total={pages}
            value={current}
            onChange={setPage}
            size="sm"
            aria-label="Pages of scripts waiting for review"
            getControlProps={(control) => ({
              'aria-label': control === 'previous' ? 'Previous page' : 'Next page',
            })}
            getItemProps={(p) => ({ 'aria-label': `Page ${p}` })}
          />
        </Group>
      )}
    </Stack>
  );
}
