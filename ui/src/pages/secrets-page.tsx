import {
  Alert,
  Anchor,
  Badge,
  Button,
  Code,
  Group,
  Modal,
  PasswordInput,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { api, errorMessage } from '../api/client';
import type { ScriptListEntry, SecretInfo } from '../api/types';
import { useData } from '../api/use-data';
import { ConfirmButton } from '../components/confirm-button';
import { DataTable } from '../components/data-table';
import { Empty, Loaded } from '../components/states';
import { When } from '../components/time';

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

async function loadSecrets() {
  const [secrets, scripts] = await Promise.all([
    api.get<{ secrets: SecretInfo[] }>('/api/secrets'),
    api.get<{ scripts: ScriptListEntry[] }>('/api/scripts'),
  ]);
  return { secrets: secrets.secrets, scripts: scripts.scripts };
}

/** Secret names, whether each has a value, and who declares it; values go in and never come out. */
export default function SecretsPage() {
  const state = useData(loadSecrets, []);
  const [editing, setEditing] = useState<{ name: string; isNew: boolean } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Secrets</Title>
        <Button onClick={() => setEditing({ name: '', isNew: true })}>Add a secret</Button>
      </Group>
      <Text size="sm" c="dimmed">
        Values are encrypted at rest, redacted from every output, and never shown again once set.
      </Text>
      {notice && (
        <Alert color="green" role="status" withCloseButton onClose={() => setNotice(null)}>
          {notice}
        </Alert>
      )}
      <Loaded state={state} what="secrets">
        {({ secrets, scripts }) => {
          if (secrets.length === 0) {
            return (
              <Empty>No secrets yet. Scripts that declare one in # @secrets: list it here.</Empty>
            );
          }
          return (
            <DataTable
              striped
              highlightOnHover
              columns={['Name', 'Value', 'Last updated', 'Declared by', 'Actions']}
            >
              {[...secrets]
                .sort((a, b) => a.name.localeCompare(b.name))
                .map((s) => {
                  const users = scripts.filter((sc) => sc.required_secrets.includes(s.name));
                  return (
                    <Table.Tr key={s.name}>
                      <Table.Td>
                        <Code>{s.name}</Code>
                      </Table.Td>
                      <Table.Td>
                        <Badge color={s.set ? 'green' : 'orange'} variant="light">
                          {s.set ? 'set' : 'not set'}
                        </Badge>
                      </Table.Td>
                      <Table.Td>
                        <When at={s.last_updated} />
                      </Table.Td>
                      <Table.Td>
                        {users.length === 0 ? (
                          <Text size="sm" c="dimmed">
                            no script
                          </Text>
                        ) : (
                          <Group gap={6}>
                            {users.map((u) => (
                              <Anchor
                                key={u.name}
                                size="sm"
                                component={Link}
                                to={`/scripts/${encodeURIComponent(u.name)}`}
                              >
                                {u.name}
                              </Anchor>
                            ))}
                          </Group>
                        )}
                      </Table.Td>
                      <Table.Td>
                        <Group gap="xs">
                          <Button
                            size="xs"
                            variant="default"
                            onClick={() => setEditing({ name: s.name, isNew: false })}
                            aria-label={`${s.set ? 'Replace' : 'Set'} ${s.name}`}
                          >
                            {s.set ? 'Replace' : 'Set'}
                          </Button>
                          {s.set && (
                            <ConfirmButton
                              size="xs"
                              title={`Delete ${s.name}?`}
                              message={
                                users.length > 0
                                  ? `Scripts that read it (${users.map((u) => u.name).join(', ')}) will fail until it is set again.`
                                  : 'The value is removed for good.'
                              }
                              confirmLabel="Delete"
                              aria-label={`Delete ${s.name}`}
                              onConfirm={async () => {
                                await api.delete(`/api/secrets/${encodeURIComponent(s.name)}`);
                                setNotice(`${s.name} deleted.`);
                                await state.reload();
                              }}
                            >
                              Delete
                            </ConfirmButton>
                          )}
                        </Group>
                      </Table.Td>
                    </Table.Tr>
                  );
                })}
            </DataTable>
          );
        }}
      </Loaded>
      {editing && (
        <SetSecretDialog
          initialName={editing.name}
          isNew={editing.isNew}
          withValue={new Set(state.data?.secrets.filter((x) => x.set).map((x) => x.name) ?? [])}
          onClose={() => setEditing(null)}
          onSaved={async (name, warning) => {
            setEditing(null);
            setNotice(`${name} set.${warning ? ` ${warning}` : ''}`);
            await state.reload();
          }}
        />
      )}
    </Stack>
  );
}

function SetSecretDialog({
  initialName,
  isNew,
  withValue,
  onClose,
  onSaved,
}: {
  initialName: string;
  isNew: boolean;
  /** Names that already have a value: "Add" with one of them asks before replacing it. */
  withValue: ReadonlySet<string>;
  onClose: () => void;
  onSaved: (name: string, warning?: string) => Promise<void>;
}) {
  const [name, setName] = useState(initialName);
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const nameError =
    name && !NAME.test(name) ? 'Letters, digits and _, not starting with a digit' : null;

  const save = async () => {
    if (isNew && withValue.has(name) && !confirming) {
      setConfirming(true);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const answer = await api.post<{ name: string; set: true; warning?: string }>(
        `/api/secrets/${encodeURIComponent(name)}`,
        { value },
      );
      setValue('');
      await onSaved(name, answer.warning);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal opened onClose={onClose} title={isNew ? 'Add a secret' : `Set ${initialName}`}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
        autoComplete="off"
      >
        <Stack>
          <TextInput
            label="Name"
            value={name}
            onChange={(e) => {
              setName(e.currentTarget.value);
              setConfirming(false);
            }}
            readOnly={!isNew}
            error={nameError}
            required
            data-autofocus={isNew ? true : undefined}
          />
          <PasswordInput
            label="Value"
            description="Write-only: it is never shown again"
            value={value}
            onChange={(e) => setValue(e.currentTarget.value)}
            required
            autoComplete="new-password"
            data-autofocus={isNew ? undefined : true}
          />
          {error && (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          )}
          {confirming && (
            <Alert color="orange" role="alert" title={`${name} already has a value`}>
              Saving replaces it for good; scripts that read {name} get the new value.
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy} disabled={!name || !!nameError || !value}>
              {confirming ? `Replace ${name}` : 'Save secret'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
