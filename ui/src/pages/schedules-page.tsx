import { Anchor, Badge, Button, Group, Stack, Switch, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { api, errorMessage } from '../api/client';
import type { Schedule } from '../api/types';
import { useData } from '../api/use-data';
import { RunStatusBadge } from '../components/badges';
import { ConfirmButton } from '../components/confirm-button';
import { DataTable } from '../components/data-table';
import { Empty, ErrorAlert, Loaded } from '../components/states';
import { When } from '../components/time';
import { cronInWords, formatIn, nextFirings } from '../schedule-time';

export default function SchedulesPage() {
  const state = useData(() => api.get<{ schedules: Schedule[] }>('/api/schedules'), []);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const act = async (work: () => Promise<unknown>, done?: string) => {
    setError(null);
    setNotice(null);
    try {
      await work();
      if (done) setNotice(done);
      await state.reload();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Schedules</Title>
        <Button component={Link} to="/schedules/new">
          New schedule
        </Button>
      </Group>
      {error ? <ErrorAlert error={error} title="That did not work" /> : null}
      {notice && (
        <Text size="sm" c="teal.9" role="status">
          {notice}
        </Text>
      )}
      <Loaded state={state} what="schedules">
        {({ schedules }) => {
          if (schedules.length === 0) {
            return (
              <Empty>No schedules. Create one to run a script or ask the AI on a timetable.</Empty>
            );
          }
          return (
            <DataTable
              striped
              highlightOnHover
              columns={['Name', 'Runs', 'When', 'Next', 'Last run', 'Enabled', 'Actions']}
            >
              {schedules.map((s) => {
                const next = nextFirings(s.cron_expr, s.timezone, 1);
                return (
                  <Table.Tr key={s.id}>
                    <Table.Td>
                      <Anchor component={Link} to={`/schedules/${encodeURIComponent(s.id)}`}>
                        {s.name}
                      </Anchor>
                      {s.run_once && (
                        <Badge ml={6} size="xs" variant="outline">
                          once
                        </Badge>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">
                        {s.type === 'script' ? s.script_name : 'AI prompt'}
                        {s.output_target ? ` → ${s.output_target.provider}` : ''}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{cronInWords(s.cron_expr)}</Text>
                      <Text size="xs" c="dimmed">
                        <code>{s.cron_expr}</code> {s.timezone}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">
                        {!s.enabled
                          ? 'disabled'
                          : 'fires' in next
                            ? formatIn(next.fires[0]!, s.timezone)
                            : next.error}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      {s.last_run_status ? (
                        <Group gap={4}>
                          <RunStatusBadge status={s.last_run_status} />
                          <When at={s.last_run_at} />
                        </Group>
                      ) : (
                        <Text size="sm" c="dimmed">
                          never
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Switch
                        checked={s.enabled}
                        aria-label={`${s.name} enabled`}
                        onChange={(e) =>
                          void act(() =>
                            api.post(
                              `/api/schedules/${encodeURIComponent(s.id)}/${e.currentTarget.checked ? 'enable' : 'disable'}`,
                            ),
                          )
                        }
                      />
                    </Table.Td>
                    <Table.Td>
                      <Group gap="xs" wrap="nowrap">
                        <Button
                          size="xs"
                          variant="default"
                          aria-label={`Run now: ${s.name}`}
                          onClick={() =>
                            void act(
                              () => api.post(`/api/schedules/${encodeURIComponent(s.id)}/run`),
                              `${s.name} triggered; its run appears on its page.`,
                            )
                          }
                        >
                          Run now
                        </Button>
                        <ConfirmButton
                          size="xs"
                          title={`Delete ${s.name}?`}
                          message="The schedule and its run history are removed."
                          confirmLabel="Delete"
                          aria-label={`Delete ${s.name}`}
                          onConfirm={() =>
                            api
                              .delete(`/api/schedules/${encodeURIComponent(s.id)}`)
                              .then(() => state.reload())
                              .catch((err: unknown) => {
                                throw new Error(errorMessage(err));
                              })
                          }
                        >
                          Delete
                        </ConfirmButton>
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </DataTable>
          );
        }}
      </Loaded>
    </Stack>
  );
}
