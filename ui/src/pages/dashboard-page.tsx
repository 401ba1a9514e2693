import {
  Anchor,
  Badge,
  Button,
  Card,
  Group,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { api, errorMessage } from '../api/client';
import type { Health, Metrics, Readiness, Schedule, ScriptListEntry, Status } from '../api/types';
import { useData } from '../api/use-data';
import { RunStatusBadge, ScriptStatusBadge } from '../components/badges';
import { DataTable } from '../components/data-table';
import { PendingList } from '../components/pending-list';
import { Empty, Loaded } from '../components/states';
import { When } from '../components/time';

interface Overview {
  health: { status: number; body: Health | null };
  ready: { status: number; body: Readiness | null };
  metrics: Metrics | null;
  status: Status | null;
}

async function loadOverview(): Promise<Overview> {
  const [health, ready, metrics, status] = await Promise.all([
    api.probe<Health>('/health'),
    api.probe<Readiness>('/ready'),
    api.probe<Metrics>('/metrics'),
    api.get<Status>('/api/status').catch(() => null),
  ]);
  return { health, ready, metrics: metrics.status === 200 ? metrics.body : null, status };
}

/** "Download a backup": the file `steward backup` writes, saved by the browser. */
function BackupButton() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function download() {
    setBusy(true);
    setError(null);
    try {
      const { blob, filename } = await api.download('/api/backup');
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = filename;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  }
  return (
    <Group gap="xs">
      {error && (
        <Text size="sm" c="red" role="alert">
          {error}
        </Text>
      )}
      <Button variant="default" loading={busy} onClick={() => void download()}>
        Download a backup
      </Button>
    </Group>
  );
}

export default function DashboardPage() {
  const overview = useData(loadOverview, []);
  // The probes cost no rate limit; /api/status one call in 15 s.
  useEffect(() => {
    const timer = setInterval(() => void overview.reload(), 15_000);
    return () => clearInterval(timer);
  }, [overview.reload]);
  const scripts = useData(() => api.get<{ scripts: ScriptListEntry[] }>('/api/scripts'), []);
  const schedules = useData(() => api.get<{ schedules: Schedule[] }>('/api/schedules'), []);

  return (
    <Stack gap="lg">
      <Group justify="space-between">
        <Title order={2}>Dashboard</Title>
        <BackupButton />
      </Group>

      <section aria-labelledby="pending-title">
        <Title order={3} size="h4" id="pending-title" mb="xs">
          Waiting for your approval
        </Title>
        <Loaded state={scripts} what="scripts">
          {({ scripts: list }) => <PendingList scripts={list} />}
        </Loaded>
      </section>

      <Loaded state={overview} what="status">
        {({ health, ready, metrics, status }) => (
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
            <Card withBorder>
              <Text size="sm" c="dimmed">
                Health
              </Text>
              <Group gap="xs" mt={4}>
                <Badge color={health.status === 200 ? 'green' : 'red'}>
                  {health.body?.status ?? `HTTP ${health.status}`}
                </Badge>
                {health.body && 'version' in health.body && (
                  <Text size="sm">
                    v{health.body.version}, up {health.body.uptime}
                  </Text>
                )}
                {health.body && 'reason' in health.body && (
                  <Text size="sm">{health.body.message}</Text>
                )}
              </Group>
            </Card>
            <Card withBorder>
              <Text size="sm" c="dimmed">
                Readiness
              </Text>
              <Group gap="xs" mt={4}>
                <Badge color={ready.body?.ready ? 'green' : 'red'}>
                  {ready.body?.ready ? 'ready' : 'not ready'}
                </Badge>
                {ready.body &&
                  Object.entries(ready.body.checks).map(([check, ok]) => (
                    <Badge key={check} variant="outline" color={ok ? 'green' : 'red'}>
                      {check.replace('_', ' ')}
                    </Badge>
                  ))}
              </Group>
            </Card>
            <Card withBorder>
              <Text size="sm" c="dimmed">
                AI engine and chat
              </Text>
              {status ? (
                <Group gap="xs" mt={4}>
                  <Badge color={status.engine.status === 'connected' ? 'green' : 'red'}>
                    engine {status.engine.status}
                  </Badge>
                  {status.chat.providers.length === 0 ? (
                    <Text size="sm">no chat provider configured</Text>
                  ) : (
                    status.chat.providers.map((p) => (
                      <Badge key={p} variant="outline">
                        {p}
                      </Badge>
                    ))
                  )}
                </Group>
              ) : (
                <Text size="sm">unknown</Text>
              )}
            </Card>
            <Card withBorder>
              <Text size="sm" c="dimmed">
                Scripts
              </Text>
              {metrics ? (
                <Text size="sm" mt={4}>
                  {metrics.scripts.total} in all: {metrics.scripts.approved} approved,{' '}
                  {metrics.scripts.pending} pending, {metrics.scripts.rejected} rejected
                </Text>
              ) : (
                <Text size="sm">no counts</Text>
              )}
            </Card>
            <Card withBorder>
              <Text size="sm" c="dimmed">
                Runs and secrets
              </Text>
              {metrics ? (
                <Text size="sm" mt={4}>
                  {metrics.executions.total} runs, {metrics.executions.failed} failed (avg{' '}
                  {Math.round(metrics.executions.avg_duration_ms)} ms); {metrics.secrets.configured}{' '}
                  of {metrics.secrets.total} secrets set
                </Text>
              ) : (
                <Text size="sm">no counts</Text>
              )}
            </Card>
          </SimpleGrid>
        )}
      </Loaded>

      <Text size="xs" c="dimmed">
        Counts come from /metrics, which may be up to 10 seconds old; this page refreshes them every
        15 seconds.
      </Text>

      <section aria-labelledby="runs-title">
        <Title order={3} size="h4" id="runs-title" mb="xs">
          Recent schedule runs
        </Title>
        <Loaded state={schedules} what="schedules">
          {({ schedules: list }) => {
            const ran = list
              .filter((s) => s.last_run_at)
              .sort((a, b) => {
                // Failures first, then the newest.
                const fa = a.last_run_status === 'error' ? 0 : 1;
                const fb = b.last_run_status === 'error' ? 0 : 1;
                return fa - fb || (b.last_run_at ?? '').localeCompare(a.last_run_at ?? '');
              })
              .slice(0, 10);
            if (ran.length === 0) return <Empty>No schedule has run yet.</Empty>;
            return (
              <DataTable striped columns={['Schedule', 'Status', 'When', 'Error']}>
                {ran.map((s) => (
                  <Table.Tr key={s.id}>
                    <Table.Td>
                      <Anchor component={Link} to={`/schedules/${encodeURIComponent(s.id)}`}>
                        {s.name}
                      </Anchor>
                    </Table.Td>
                    <Table.Td>
                      <RunStatusBadge status={s.last_run_status ?? 'unknown'} />
                    </Table.Td>
                    <Table.Td>
                      <When at={s.last_run_at} />
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" lineClamp={2}>
                        {s.last_run_error || '—'}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </DataTable>
            );
          }}
        </Loaded>
      </section>

      <section aria-labelledby="rejected-title">
        <Title order={3} size="h4" id="rejected-title" mb="xs">
          Rejected scripts
        </Title>
        <Loaded state={scripts} what="scripts">
          {({ scripts: list }) => {
            const rejected = list.filter((s) => s.status === 'rejected');
            if (rejected.length === 0) return <Empty>No rejected script.</Empty>;
            return (
              <Group gap="xs">
                {rejected.map((s) => (
                  <Anchor
                    key={s.name}
                    component={Link}
                    to={`/scripts/${encodeURIComponent(s.name)}`}
                  >
                    <Group gap={4}>
                      {s.name} <ScriptStatusBadge status={s.status} />
                    </Group>
                  </Anchor>
                ))}
              </Group>
            );
          }}
        </Loaded>
      </section>
    </Stack>
  );
}
