import { Badge, Button, Code, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { api, errorMessage } from '../api/client';
import type { Identity, Pairing, Status } from '../api/types';
import { useData } from '../api/use-data';
import { ConfirmButton } from '../components/confirm-button';
import { DataTable } from '../components/data-table';
import { Empty, ErrorAlert, Loaded } from '../components/states';
import { When } from '../components/time';

async function loadChat() {
  const [status, pairings, identities] = await Promise.all([
    api.get<Status>('/api/status'),
    api.get<Pairing[]>('/api/chat/pairings'),
    api.get<Identity[]>('/api/chat/identities'),
  ]);
  return { status, pairings, identities };
}

/** Chat providers, strangers asking to talk to the assistant, and who may already. */
export default function ChatPage() {
  const state = useData(loadChat, []);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const approve = async (p: Pairing) => {
    setError(null);
    try {
      await api.post(`/api/chat/pairings/${encodeURIComponent(p.code)}/approve`);
      setNotice(`${p.name || p.user_id} may now talk to the assistant.`);
      await state.reload();
    } catch (err) {
      setError(errorMessage(err));
    }
  };

  return (
    <Stack>
      <Title order={2}>Chat</Title>
      {error && <ErrorAlert error={error} title="That did not work" />}
      {notice && (
        <Text size="sm" c="teal.9" role="status">
          {notice}
        </Text>
      )}
      <Loaded state={state} what="chat">
        {({ status, pairings, identities }) => (
          <Stack gap="xl">
            <section aria-labelledby="providers-title">
              <Title order={3} size="h4" id="providers-title" mb="xs">
                Providers
              </Title>
              {status.chat.providers.length === 0 ? (
                <Text size="sm" c="dimmed">
                  No chat provider is configured. Add a <code>chat.telegram</code> section to
                  steward.yaml to talk to the assistant from Telegram.
                </Text>
              ) : (
                <Group>
                  {status.chat.providers.map((p) => (
                    <Badge key={p} color="green" variant="light">
                      {p}
                    </Badge>
                  ))}
                  <Text size="sm">
                    Messages go to{' '}
                    {status.chat.session_scope === 'active'
                      ? 'the active session'
                      : 'one session per chat'}
                    .
                  </Text>
                </Group>
              )}
            </section>
            <section aria-labelledby="pairings-title">
              <Title order={3} size="h4" id="pairings-title" mb="xs">
                Pairing requests
              </Title>
              {pairings.length === 0 ? (
                <Empty>
                  No one is waiting. A stranger who writes to the bot gets a code that shows up
                  here.
                </Empty>
              ) : (
                <DataTable striped columns={['Code', 'Who', 'Provider', 'Expires', 'Decision']}>
                  {pairings.map((p) => (
                    <Table.Tr key={p.code}>
                      <Table.Td>
                        <Code>{p.code}</Code>
                      </Table.Td>
                      <Table.Td>
                        {p.name || '—'}{' '}
                        <Text span size="xs" c="dimmed">
                          user {p.user_id}, chat {p.chat_id}
                        </Text>
                      </Table.Td>
                      <Table.Td>{p.provider}</Table.Td>
                      <Table.Td>
                        <When at={p.expires_at} />
                      </Table.Td>
                      <Table.Td>
                        <Group gap="xs">
                          <Button
                            size="xs"
                            color="teal"
                            onClick={() => void approve(p)}
                            aria-label={`Approve ${p.code}`}
                          >
                            Approve
                          </Button>
                          <ConfirmButton
                            size="xs"
                            title={`Deny ${p.code}?`}
                            message={`${p.name || p.user_id} will not be able to talk to the assistant.`}
                            confirmLabel="Deny"
                            aria-label={`Deny ${p.code}`}
                            onConfirm={async () => {
                              await api.post(
                                `/api/chat/pairings/${encodeURIComponent(p.code)}/deny`,
                              );
                              await state.reload();
                            }}
                          >
                            Deny
                          </ConfirmButton>
                        </Group>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </DataTable>
              )}
            </section>
            <section aria-labelledby="identities-title">
              <Title order={3} size="h4" id="identities-title" mb="xs">
                Approved people
              </Title>
              {identities.length === 0 ? (
                <Empty>No one approved through pairing yet.</Empty>
              ) : (
                <DataTable striped columns={['Who', 'Provider', 'Chat', 'Approved']}>
                  {identities.map((i) => (
                    <Table.Tr key={`${i.provider}:${i.user_id}`}>
                      <Table.Td>{i.name || i.user_id}</Table.Td>
                      <Table.Td>{i.provider}</Table.Td>
                      <Table.Td>{i.chat_id}</Table.Td>
                      <Table.Td>
                        <When at={i.approved_at} />
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </DataTable>
              )}
            </section>
          </Stack>
        )}
      </Loaded>
    </Stack>
  );
}
