import {
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  Select,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { api, errorMessage } from '../api/client';
import type { Model, ModelRef, Session } from '../api/types';
import { useData } from '../api/use-data';
import { ConfirmButton } from '../components/confirm-button';
import { DataTable } from '../components/data-table';
import { Empty, ErrorAlert, Loaded } from '../components/states';
import { When } from '../components/time';

export default function SessionsPage() {
  const navigate = useNavigate();
  const sessions = useData(() => api.get<Session[]>('/api/sessions'), []);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const create = async () => {
    setBusy(true);
    setError(null);
    try {
      const created = await api.post<Session>('/api/sessions');
      navigate(`/sessions/${encodeURIComponent(created.id)}`);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Sessions</Title>
        <Button onClick={() => void create()} loading={busy}>
          New session
        </Button>
      </Group>
      <Text size="sm" c="dimmed">
        Conversations with the AI engine. The active session also receives chat-provider messages; a
        new session becomes the active one.
      </Text>
      {error ? <ErrorAlert error={error} title="Could not create a session" /> : null}
      <DefaultModel />
      <Loaded state={sessions} what="sessions">
        {(list) =>
          list.length === 0 ? (
            <Empty>No sessions yet. Start one to chat with the AI.</Empty>
          ) : (
            <DataTable
              striped
              highlightOnHover
              columns={['Session', 'Updated', 'Created', 'Actions']}
            >
              {[...list]
                .sort((a, b) => b.time.updated - a.time.updated)
                .map((s) => (
                  <Table.Tr key={s.id}>
                    <Table.Td>
                      <Group gap={6}>
                        <Anchor component={Link} to={`/sessions/${encodeURIComponent(s.id)}`}>
                          {s.title || s.slug || s.id}
                        </Anchor>
                        {s.active && (
                          <Badge color="green" variant="light">
                            active
                          </Badge>
                        )}
                      </Group>
                    </Table.Td>
                    <Table.Td>
                      <When at={s.time.updated} />
                    </Table.Td>
                    <Table.Td>
                      <When at={s.time.created} />
                    </Table.Td>
                    <Table.Td>
                      <ConfirmButton
                        size="xs"
                        title="Delete this session?"
                        message={`"${s.title || s.slug}" and all its messages are deleted in the engine.`}
                        confirmLabel="Delete"
                        aria-label={`Delete session ${s.title || s.slug}`}
                        onConfirm={async () => {
                          await api.delete(`/api/sessions/${encodeURIComponent(s.id)}`);
                          await sessions.reload();
                        }}
                      >
                        Delete
                      </ConfirmButton>
                    </Table.Td>
                  </Table.Tr>
                ))}
            </DataTable>
          )
        }
      </Loaded>
    </Stack>
  );
}

function DefaultModel() {
  const models = useData(
    () => api.get<{ models: Model[]; default: ModelRef | null }>('/api/models'),
    [],
  );
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);

  if (models.error) {
    return (
      <Alert color="yellow" title="Models unavailable">
        {errorMessage(models.error)}
      </Alert>
    );
  }
  if (!models.data) return null;
  const value = models.data.default
    ? `${models.data.default.provider}/${models.data.default.model}`
    : null;
  return (
    <Group align="flex-end">
      <Select
        label="Default model for new sessions"
        placeholder="the engine's own default"
        value={value}
        data={models.data.models.map((m) => ({
          value: `${m.provider_id}/${m.model_id}`,
          label: `${m.provider_id}/${m.model_id} (${Math.round(m.context_limit / 1000)}k context)`,
        }))}
        w={360}
        onChange={(v) => {
          if (!v) return;
          const [provider, ...rest] = v.split('/');
          setError(null);
          setSaved(false);
          api
            .put<{ ok: true; default: ModelRef }>('/api/models/default', {
              provider,
              model: rest.join('/'),
            })
            .then((answer) => {
              models.setData({ ...models.data!, default: answer.default });
              setSaved(true);
            })
            .catch((err: unknown) => setError(errorMessage(err)));
        }}
        error={error}
      />
      {saved && (
        <Text size="sm" c="teal.9" role="status">
          Saved; sessions created from now on use it.
        </Text>
      )}
    </Group>
  );
}
