import {
  Anchor,
  Badge,
  Button,
  Group,
  SegmentedControl,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { api } from '../api/client';
import type { ScriptListEntry } from '../api/types';
import { useData } from '../api/use-data';
import { ScriptStatusBadge } from '../components/badges';
import { DataTable } from '../components/data-table';
import { Empty, Loaded } from '../components/states';
import { When } from '../components/time';

const filters = ['all', 'pending', 'approved', 'rejected'] as const;

export default function ScriptsPage() {
  const [params, setParams] = useSearchParams();
  const status = (filters as readonly string[]).includes(params.get('status') ?? '')
    ? (params.get('status') as (typeof filters)[number])
    : 'all';
  const [query, setQuery] = useState(params.get('q') ?? '');
  const scripts = useData(() => api.get<{ scripts: ScriptListEntry[] }>('/api/scripts'), []);

  const update = (next: { status?: string; q?: string }) => {
    const p = new URLSearchParams(params);
    for (const [k, v] of Object.entries(next)) {
      if (v && v !== 'all') p.set(k, v);
      else p.delete(k);
    }
    setParams(p, { replace: true });
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Scripts</Title>
        <Button component={Link} to="/scripts/new">
          New script
        </Button>
      </Group>
      <Group>
        <SegmentedControl
          aria-label="Filter by status"
          value={status}
          onChange={(v) => update({ status: v })}
          data={filters.map((f) => ({ value: f, label: f[0]!.toUpperCase() + f.slice(1) }))}
        />
        <TextInput
          aria-label="Search scripts"
          placeholder="Search name, description or secret"
          value={query}
          onChange={(e) => {
            setQuery(e.currentTarget.value);
            update({ q: e.currentTarget.value });
          }}
          w={320}
        />
      </Group>
      <Loaded state={scripts} what="scripts">
        {({ scripts: list }) => {
          const q = query.trim().toLowerCase();
          const shown = list
            .filter((s) => status === 'all' || s.status === status)
            .filter(
              (s) =>
                !q ||
                s.name.toLowerCase().includes(q) ||
                s.description.toLowerCase().includes(q) ||
                s.required_secrets.some((n) => n.toLowerCase().includes(q)),
            )
            .sort((a, b) => a.name.localeCompare(b.name));
          if (list.length === 0) {
            return (
              <Empty>
                No scripts yet.{' '}
                <Anchor component={Link} to="/scripts/new">
                  Create one
                </Anchor>
                , or let the AI propose one: it waits here for your review.
              </Empty>
            );
          }
          if (shown.length === 0) return <Empty>No script matches.</Empty>;
          return (
            <DataTable
              striped
              highlightOnHover
              columns={['Name', 'Status', 'Description', 'Secrets', 'Changed']}
            >
              {shown.map((s) => (
                <Table.Tr key={s.name}>
                  <Table.Td>
                    <Anchor component={Link} to={`/scripts/${encodeURIComponent(s.name)}`}>
                      {s.name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <ScriptStatusBadge status={s.status} />
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{s.description || '—'}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4}>
                      {s.required_secrets.length === 0
                        ? '—'
                        : s.required_secrets.map((n) => (
                            <Badge key={n} variant="outline" color="gray">
                              {n}
                            </Badge>
                          ))}
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    <When at={s.modified_at} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </DataTable>
          );
        }}
      </Loaded>
    </Stack>
  );
}
