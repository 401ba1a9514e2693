import {
  Alert,
  Badge,
  Button,
  Code,
  Group,
  List,
  Select,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { api, ApiError } from '../api/client';
import type { AuditPage, ScriptDetail, VersionEntry } from '../api/types';
import { useData } from '../api/use-data';
import { actorLabel, channelLabels } from '../audit-view';
import { scriptHash } from '../sha256';
import { lastApproved, versionStories, type VersionEvent } from '../version-story';
import { ConfirmButton } from './confirm-button';
import { DataTable } from './data-table';
import { SideBySideDiff } from './side-by-side-diff';
import { ErrorAlert, Loaded, Loading } from './states';
import { When } from './time';
import { formatDateTime } from '../format-time';

const path = (name: string) => `/api/scripts/${encodeURIComponent(name)}`;

async function loadVersions(name: string) {
  const [history, audit] = await Promise.all([
    api.get<{ versions: VersionEntry[] }>(`${path(name)}/history`),
    // The audit log is where decisions are kept; the newest 200 script entries of this one.
    api.get<AuditPage>(`/api/audit?action=script&target=${encodeURIComponent(name)}&limit=200`),
  ]);
  return { versions: history.versions, stories: versionStories(audit.entries) };
}

const eventColors = { approved: 'green', rejected: 'red', written: 'gray', restored: 'blue' };

function EventLine({ e }: { e: VersionEvent }) {
  return (
    <List.Item>
      <Badge color={eventColors[e.kind]} variant="light" size="sm">
        {e.kind}
      </Badge>{' '}
      by {actorLabel(e.actor)} through {channelLabels[e.channel]} <When at={e.at} />
      {e.from && (
        <>
          {' '}
          from <Code>{e.from.slice(0, 8)}</Code>
        </>
      )}
      {e.reason && <>: “{e.reason}”</>}
    </List.Item>
  );
}

/**
 * The versions of a script, newest first, each with its story from the audit log, which one is
 * current (the text and hash at the top of the page) and which one the approval covers; restore
 * of any version, "restore the last approved version" as one confirmed action, and a compare.
 */
export function ScriptVersions({
  script,
  onRestored,
}: {
  script: ScriptDetail;
  onRestored: (notice: string) => void;
}) {
  const name = script.name;
  const data = useData(() => loadVersions(name), [name, script.hash, script.status]);
  const [from, setFrom] = useState<string | null>(null);
  const [to, setTo] = useState<string | null>(null);
  const [pair, setPair] = useState<{ before: string; after: string } | null>(null);
  const [pairError, setPairError] = useState<unknown>(null);
  const [loadingPair, setLoadingPair] = useState(false);

  const compare = async (a: string, b: string) => {
    setLoadingPair(true);
    setPairError(null);
    try {
      const [x, y] = await Promise.all(
        [a, b].map((c) => api.get<{ source: string }>(`${path(name)}/history/${c}`)),
      );
      setPair({ before: x!.source, after: y!.source });
    } catch (err) {
      setPairError(err);
    } finally {
      setLoadingPair(false);
    }
  };

  /** Brings back the text of `commit` and approves that very text (its hash, computed here). */
  const restoreApproved = async (commit: string) => {
    const old = await api.get<{ source: string }>(`${path(name)}/history/${commit}`);
    const hash = await scriptHash(old.source);
    const restored = await api.post<{ status: string }>(`${path(name)}/restore/${commit}`);
    try {
      await api.post(`${path(name)}/approve`, { hash });
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) {
        throw new Error(
          `Version ${commit.slice(0, 8)} was restored (${restored.status}), but the script changed again before it could be approved: review it.`,
        );
      }
      throw err;
    }
    onRestored(
      `Restored the last approved version ${commit.slice(0, 8)} as a new current version, approved again (${hash.slice(0, 19)}…): it is what runs now.`,
    );
  };

  return (
    <Loaded state={data} what="versions">
      {({ versions: list, stories }) => {
        const order = list.map((v) => v.commit);
        const back = lastApproved(script.approved_commit, stories, order);
        const options = list.map((v, i) => ({
          value: v.commit,
          label: `${i === 0 ? 'current — ' : ''}${v.commit.slice(0, 8)} ${v.message} (${formatDateTime(new Date(v.timestamp))})`,
        }));
        return (
          <Stack>
            {back && (
              <Alert color="blue" title="Go back to what was approved">
                <Group justify="space-between" wrap="wrap">
                  <Text size="sm">
                    Version <Code>{back.slice(0, 8)}</Code> is the last one you approved.
                  </Text>
                  <ConfirmButton
                    size="sm"
                    variant="filled"
                    color="blue"
                    title={`Restore version ${back.slice(0, 8)}?`}
                    message={`Its text becomes the current version of ${name} and is approved again at once (you approved this exact text before), so it is what runs. The current text stays in the history.`}
                    confirmLabel="Restore and approve"
                    onConfirm={() => restoreApproved(back)}
                  >
                    Restore the last approved version
                  </ConfirmButton>
                </Group>
              </Alert>
            )}
            <div className="table-scroll">
              <DataTable
                striped
                className="stack-table"
                columns={['Version', 'Its story', 'Restore']}
              >
                {list.map((v, i) => {
                  const events = stories.get(v.commit) ?? [];
                  const hash = i === 0 ? script.hash : events.find((e) => e.hash)?.hash;
                  return (
                    <Table.Tr key={v.commit} aria-label={`Version ${v.commit.slice(0, 8)}`}>
                      <Table.Td>
                        <Stack gap={2}>
                          <Code>{v.commit.slice(0, 8)}</Code>
                          {i === 0 && (
                            <Badge color="indigo" variant="light" size="sm">
                              current
                            </Badge>
                          )}
                          {v.commit === script.approved_commit && (
                            <Badge color="green" variant="light" size="sm">
                              approved text
                            </Badge>
                          )}
                        </Stack>
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm" className="long-word">
                          {v.message} by {actorLabel(v.author)} <When at={v.timestamp} />
                        </Text>
                        {hash && (
                          <Text size="xs" c="dimmed" className="long-word">
                            {hash}
                            {i === 0 ? ' (the hash at the top of the page)' : ''}
                          </Text>
                        )}
                        {events.length > 0 && (
                          <List size="sm" className="version-events">
                            {events
                              .filter(
                                (e) =>
                                  e.kind === 'approved' ||
                                  e.kind === 'rejected' ||
                                  e.kind === 'restored',
                              )
                              .map((e, k) => (
                                <EventLine key={k} e={e} />
                              ))}
                          </List>
                        )}
                      </Table.Td>
                      <Table.Td>
                        {i === 0 ? (
                          <Text size="sm" c="dimmed">
                            current
                          </Text>
                        ) : (
                          <ConfirmButton
                            size="xs"
                            variant="default"
                            color="gray"
                            title={`Restore version ${v.commit.slice(0, 8)}?`}
                            message="Its text becomes a new version, pending your approval again."
                            confirmLabel="Restore"
                            onConfirm={async () => {
                              await api.post(`${path(name)}/restore/${v.commit}`);
                              onRestored(
                                `Restored version ${v.commit.slice(0, 8)} as a new current version: it waits for your review.`,
                              );
                            }}
                          >
                            Restore
                          </ConfirmButton>
                        )}
                      </Table.Td>
                    </Table.Tr>
                  );
                })}
              </DataTable>
            </div>
            {list.length > 1 && (
              <Stack gap="xs">
                <Title order={3} size="h5">
                  Compare two versions
                </Title>
                <Group align="flex-end" wrap="wrap">
                  <Select label="From" data={options} value={from} onChange={setFrom} maw={360} />
                  <Select label="To" data={options} value={to} onChange={setTo} maw={360} />
                  <Button
                    variant="default"
                    disabled={!from || !to}
                    onClick={() => from && to && void compare(from, to)}
                  >
                    Compare
                  </Button>
                </Group>
                {loadingPair && <Loading label="Loading both versions…" />}
                {pairError ? <ErrorAlert error={pairError} /> : null}
                {pair && (
                  <SideBySideDiff
                    before={pair.before}
                    after={pair.after}
                    beforeLabel={`From ${from?.slice(0, 8)}`}
                    afterLabel={`To ${to?.slice(0, 8)}`}
                  />
                )}
              </Stack>
            )}
          </Stack>
        );
      }}
    </Loaded>
  );
}
