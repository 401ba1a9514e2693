import {
  Alert,
  Anchor,
  Badge,
  Button,
  Code,
  Group,
  SimpleGrid,
  Stack,
  Table,
  Tabs,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import { useEffect, useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router-dom';
import { api, errorMessage } from '../api/client';
import type { RunResult, ScriptDetail, SecretInfo, VersionEntry } from '../api/types';
import { useData } from '../api/use-data';
import { RunStatusBadge, ScriptStatusBadge } from '../components/badges';
import CodeEditor from '../components/code-editor';
import { ConfirmButton } from '../components/confirm-button';
import { DataTable } from '../components/data-table';
import { LongText } from '../components/long-text';
import { ScriptVersions } from '../components/script-versions';
import { formatDateTime } from '../format-time';
import { Empty, ErrorAlert, Loaded } from '../components/states';
import { When } from '../components/time';

const path = (name: string) => `/api/scripts/${encodeURIComponent(name)}`;

export default function ScriptPage() {
  const { name = '' } = useParams();
  const location = useLocation();
  const navigate = useNavigate();
  // A notice from the screen before is shown once: kept here, then taken out of the history
  // entry, so a reload does not show it again over a script that changed since.
  const [{ notice, tone = 'green' }] = useState(
    () => (location.state ?? {}) as { notice?: string; tone?: string },
  );
  useEffect(() => {
    if (location.state) navigate(location.pathname, { replace: true, state: null });
  }, [location.state, location.pathname, navigate]);
  const script = useData(() => api.get<ScriptDetail>(path(name)), [name]);
  // The head of the history is the version whose text and hash the header shows.
  const head = useData(
    () => api.get<{ versions: VersionEntry[] }>(`${path(name)}/history`),
    [name, script.data?.hash],
  );
  const [tab, setTab] = useState<string | null>('source');
  const [restored, setRestored] = useState<string | null>(null);

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>{name}</Title>
        <Anchor component={Link} to="/scripts">
          All scripts
        </Anchor>
      </Group>
      {notice && !restored && (
        <Alert color={tone} role="status">
          {notice}
        </Alert>
      )}
      {restored && (
        <Alert color="green" role="status" title="Restored">
          {restored}
        </Alert>
      )}
      <Loaded state={script} what="the script">
        {(s) => (
          <Stack>
            <Group gap="sm" wrap="wrap">
              <ScriptStatusBadge status={s.status} />
              <Text size="sm" className="long-word">
                Version <Code>{head.data?.versions[0]?.commit.slice(0, 8) ?? '…'}</Code> (current),
                text hash <Code className="long-word">{s.hash}</Code>
                {s.approved_commit && s.status !== 'approved' && (
                  <>
                    ; version <Code>{s.approved_commit.slice(0, 8)}</Code> is the approved one and
                    runs until this one is decided
                  </>
                )}
              </Text>
            </Group>
            {s.status === 'rejected' && (
              <Alert color="red" title="Rejected">
                Reason: {s.reason || 'none given'}
                {s.rejected_by ? ` — ${s.rejected_by}` : ''}
                {s.rejected_at ? `, ${formatDateTime(new Date(s.rejected_at))}` : ''}
              </Alert>
            )}
            {s.status === 'approved' && s.approved_by && (
              <Text size="sm" c="dimmed">
                Approved by {s.approved_by} <When at={s.approved_at} />
              </Text>
            )}
            <Group>
              {s.status !== 'approved' && (
                <Button component={Link} to={`/scripts/${encodeURIComponent(name)}/review`}>
                  Review
                </Button>
              )}
              <Button
                variant="default"
                component={Link}
                to={`/scripts/${encodeURIComponent(name)}/edit`}
              >
                Edit
              </Button>
              {s.status === 'approved' && (
                <Button
                  variant="default"
                  component={Link}
                  to={`/scripts/${encodeURIComponent(name)}/review`}
                >
                  Revoke (reject)…
                </Button>
              )}
              <ConfirmButton
                title={`Delete ${name}?`}
                message="The script and its whole version history are removed. Schedules that run it will fail."
                confirmLabel="Delete"
                onConfirm={async () => {
                  await api.delete(path(name));
                  navigate('/scripts');
                }}
              >
                Delete
              </ConfirmButton>
            </Group>
            <Tabs value={tab} onChange={setTab} keepMounted={false}>
              <Tabs.List>
                <Tabs.Tab value="source">Source</Tabs.Tab>
                <Tabs.Tab value="test">Test run</Tabs.Tab>
                <Tabs.Tab value="history">Runs</Tabs.Tab>
                <Tabs.Tab value="versions">Versions</Tabs.Tab>
              </Tabs.List>
              <Tabs.Panel value="source" pt="md">
                <SourceTab script={s} />
              </Tabs.Panel>
              <Tabs.Panel value="test" pt="md">
                <TestRunner script={s} onRan={() => void script.reload()} />
              </Tabs.Panel>
              <Tabs.Panel value="history" pt="md">
                <RunHistory script={s} />
              </Tabs.Panel>
              <Tabs.Panel value="versions" pt="md">
                <ScriptVersions
                  script={s}
                  onRestored={(text) => {
                    setRestored(text);
                    void script.reload();
                  }}
                />
              </Tabs.Panel>
            </Tabs>
          </Stack>
        )}
      </Loaded>
    </Stack>
  );
}

function SourceTab({ script }: { script: ScriptDetail }) {
  const secrets = useData(() => api.get<{ secrets: SecretInfo[] }>('/api/secrets'), []);
  const m = script.metadata;
  return (
    <SimpleGrid cols={{ base: 1, md: 3 }}>
      <div className="span-2">
        <CodeEditor value={script.source} readOnly label={`Source of ${script.name}`} />
      </div>
      <Stack gap="sm">
        <Title order={3} size="h5">
          Metadata
        </Title>
        <Table>
          <Table.Tbody>
            <Table.Tr>
              <Table.Th>Description</Table.Th>
              <Table.Td>{m.description || '—'}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Author</Table.Th>
              <Table.Td>{m.author || '—'}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Version</Table.Th>
              <Table.Td>{m.version || '—'}</Table.Td>
            </Table.Tr>
          </Table.Tbody>
        </Table>
        <Title order={3} size="h5">
          Secrets it declares
        </Title>
        {m.secrets.length === 0 ? (
          <Text size="sm" c="dimmed">
            None.
          </Text>
        ) : (
          <Loaded state={secrets} what="secrets">
            {({ secrets: known }) => (
              <Table>
                <Table.Tbody>
                  {m.secrets.map((n) => {
                    const set = known.find((k) => k.name === n)?.set ?? false;
                    return (
                      <Table.Tr key={n}>
                        <Table.Td>
                          <Code>{n}</Code>
                        </Table.Td>
                        <Table.Td>
                          <Badge color={set ? 'green' : 'orange'} variant="light">
                            {set ? 'set' : 'not set'}
                          </Badge>
                        </Table.Td>
                        <Table.Td>
                          <Text size="xs">
                            {(m.secret_destinations[n] ?? []).join(', ') || 'no host'}
                          </Text>
                        </Table.Td>
                      </Table.Tr>
                    );
                  })}
                </Table.Tbody>
              </Table>
            )}
          </Loaded>
        )}
        <Anchor component={Link} to="/secrets" size="sm">
          Manage secrets
        </Anchor>
      </Stack>
    </SimpleGrid>
  );
}

function TestRunner({ script, onRan }: { script: ScriptDetail; onRan: () => void }) {
  const [args, setArgs] = useState('{}');
  const [fn, setFn] = useState('');
  const [result, setResult] = useState<RunResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const unavailable =
    script.status === 'pending'
      ? 'This text waits for your review: approve it first, then run it here.'
      : script.status === 'rejected'
        ? 'This script is rejected: nothing of it runs. Edit it, or restore an approved version.'
        : null;

  let parsed: unknown = null;
  let argsError: string | null = null;
  try {
    parsed = JSON.parse(args || '{}');
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      argsError = 'Arguments are a JSON object, e.g. {"city": "Oslo"}';
    }
  } catch (err) {
    argsError = `Not JSON: ${(err as Error).message}`;
  }

  const run = async () => {
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      const body = { args: parsed, ...(fn.trim() ? { function: fn.trim() } : {}) };
      setResult(await api.post<RunResult>(`${path(script.name)}/test`, body));
      onRan();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Stack>
      {unavailable && (
        <Alert color="yellow" id="run-unavailable" title="Test runs are for approved text only">
          {unavailable}
        </Alert>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void run();
        }}
      >
        <Stack>
          <Textarea
            label="Arguments (JSON object)"
            description="The script reads them as args; with a function named below, they are its keyword arguments"
            value={args}
            onChange={(e) => setArgs(e.currentTarget.value)}
            error={argsError}
            autosize
            minRows={3}
            classNames={{ input: 'mono' }}
          />
          <TextInput
            label="Function"
            description="Leave empty for main()"
            value={fn}
            onChange={(e) => setFn(e.currentTarget.value)}
            w={260}
          />
          <Group>
            <Button
              type="submit"
              loading={busy}
              disabled={!!argsError || !!unavailable}
              aria-describedby={unavailable ? 'run-unavailable' : undefined}
            >
              Run test
            </Button>
          </Group>
        </Stack>
      </form>
      {error && <ErrorAlert error={error} title="The run could not start" />}
      {result && (
        <Stack gap="xs" aria-live="polite">
          <Group gap="sm">
            <RunStatusBadge status={result.success ? 'success' : 'error'} />
            <Text size="sm">{result.duration_ms} ms</Text>
          </Group>
          {result.success ? (
            <>
              <Text size="sm" fw={600}>
                Result
              </Text>
              <LongText
                text={JSON.stringify(result.result, null, 2)}
                label="Result"
                filename={`${script.name}-result.json`}
              />
            </>
          ) : (
            <Alert color="red" title="Error">
              <span className="pre-wrap">{result.error}</span>
            </Alert>
          )}
          <Text size="sm" fw={600}>
            Logs
          </Text>
          {result.logs.length === 0 ? (
            <Text size="sm" c="dimmed">
              No output.
            </Text>
          ) : (
            <LongText
              text={result.logs.join('\n')}
              label="Logs"
              filename={`${script.name}-logs.txt`}
            />
          )}
        </Stack>
      )}
    </Stack>
  );
}

function RunHistory({ script }: { script: ScriptDetail }) {
  const runs = [...script.execution_history].reverse();
  if (runs.length === 0) return <Empty>This script has not run yet.</Empty>;
  return (
    <DataTable striped columns={['When', 'Outcome', 'Duration']}>
      {runs.map((r, i) => (
        <Table.Tr key={`${r.timestamp}-${i}`}>
          <Table.Td>
            <When at={r.timestamp} />
          </Table.Td>
          <Table.Td>
            <RunStatusBadge status={r.success ? 'success' : 'error'} />
          </Table.Td>
          <Table.Td>{r.duration_ms} ms</Table.Td>
        </Table.Tr>
      ))}
    </DataTable>
  );
}
