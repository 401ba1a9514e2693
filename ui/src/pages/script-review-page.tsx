import {
  Alert,
  Anchor,
  Button,
  Code,
  Group,
  Modal,
  Stack,
  Table,
  Text,
  Textarea,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { api, ApiError, errorMessage } from '../api/client';
import type { ScriptDetail } from '../api/types';
import { useData } from '../api/use-data';
import { ScriptStatusBadge } from '../components/badges';
import { DataTable } from '../components/data-table';
import { SideBySideDiff } from '../components/side-by-side-diff';
import { Loaded } from '../components/states';
import { scriptHash } from '../sha256';

interface Review {
  detail: ScriptDetail;
  /** The text the last approval covered, when there is one. */
  approved: { commit: string; source: string } | null;
  /** sha256 of `detail.source`, the text on screen, computed here. */
  shownHash: string;
}

async function loadReview(name: string): Promise<Review> {
  const base = `/api/scripts/${encodeURIComponent(name)}`;
  const detail = await api.get<ScriptDetail>(base);
  const approved = detail.approved_commit
    ? await api.get<{ commit: string; source: string }>(
        `${base}/history/${encodeURIComponent(detail.approved_commit)}`,
      )
    : null;
  return { detail, approved, shownHash: await scriptHash(detail.source) };
}

/**
 * The review: the pending text beside the last approved one (or the whole text when the script
 * is new). Approve sends the hash of exactly the text shown; when the script changed in the
 * meantime Steward answers 409 and the page shows the new diff instead.
 */
export default function ScriptReviewPage() {
  const { name = '' } = useParams();
  const navigate = useNavigate();
  const review = useData(() => loadReview(name), [name]);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState('');

  const approve = async (r: Review) => {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      await api.post(`/api/scripts/${encodeURIComponent(name)}/approve`, { hash: r.shownHash });
      navigate(`/scripts/${encodeURIComponent(name)}`, {
        state: { notice: `${name} approved: the AI may run this text now.` },
      });
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) {
        await review.reload();
        setNotice(
          'The script changed while you were reviewing it, so nothing was approved. Below is the new text: review it again.',
        );
      } else {
        setError(errorMessage(err));
      }
    } finally {
      setBusy(false);
    }
  };

  const reject = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.post(`/api/scripts/${encodeURIComponent(name)}/reject`, { reason: reason.trim() });
      setRejecting(false);
      navigate(`/scripts/${encodeURIComponent(name)}`, {
        state: { notice: `${name} rejected.`, tone: 'orange' },
      });
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Review {name}</Title>
        <Anchor component={Link} to={`/scripts/${encodeURIComponent(name)}`}>
          Back to the script
        </Anchor>
      </Group>
      {notice && (
        <Alert color="orange" title="The script changed" role="alert">
          {notice}
        </Alert>
      )}
      {error && (
        <Alert color="red" role="alert">
          {error}
        </Alert>
      )}
      <Loaded state={review} what="the script">
        {(r) => {
          const { detail, approved } = r;
          const upToDate = detail.status === 'approved' && approved?.source === detail.source;
          const secrets = detail.metadata.secrets;
          return (
            <Stack>
              <Group gap="sm">
                <ScriptStatusBadge status={detail.status} />
                <Text size="sm">
                  Hash of the text shown: <Code>{r.shownHash}</Code>
                </Text>
              </Group>
              {r.shownHash !== detail.hash && (
                <Alert color="red" role="alert">
                  The text received does not match the hash Steward reports ({detail.hash}). Reload
                  before approving.
                </Alert>
              )}
              {detail.status === 'rejected' && (
                <Alert color="red" title="Rejected">
                  {detail.reason || 'no reason given'}
                  {detail.rejected_by ? ` (by ${detail.rejected_by})` : ''}
                </Alert>
              )}
              {secrets.length > 0 && (
                <DataTable withTableBorder columns={['Secret the script reads', 'May be sent to']}>
                  {secrets.map((s) => (
                    <Table.Tr key={s}>
                      <Table.Td>
                        <Code>{s}</Code>
                      </Table.Td>
                      <Table.Td>
                        {(detail.metadata.secret_destinations[s] ?? []).length === 0 ? (
                          <Text size="sm" c="dimmed">
                            no host declared
                          </Text>
                        ) : (
                          <Group gap={4}>
                            {detail.metadata.secret_destinations[s]!.map((h) => (
                              <Code key={h}>{h}</Code>
                            ))}
                          </Group>
                        )}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </DataTable>
              )}
              {approved ? (
                <Text size="sm">
                  Compared with the last approved version,{' '}
                  <Code>{approved.commit.slice(0, 8)}</Code>.
                </Text>
              ) : (
                <Text size="sm">Never approved: the whole text is new.</Text>
              )}
              <SideBySideDiff
                before={approved?.source ?? ''}
                after={detail.source}
                beforeLabel={approved ? 'Last approved' : 'Nothing approved yet'}
                afterLabel={upToDate ? 'Current (approved)' : 'Pending'}
              />
              <Group>
                <Button
                  color="teal"
                  loading={busy}
                  disabled={upToDate || r.shownHash !== detail.hash}
                  onClick={() => void approve(r)}
                >
                  {upToDate ? 'Approved' : 'Approve this text'}
                </Button>
                <Button
                  color="red"
                  variant="light"
                  disabled={busy || detail.status === 'rejected'}
                  onClick={() => setRejecting(true)}
                >
                  Reject…
                </Button>
              </Group>
            </Stack>
          );
        }}
      </Loaded>
      <Modal opened={rejecting} onClose={() => setRejecting(false)} title={`Reject ${name}`}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void reject();
          }}
        >
          <Stack>
            <Textarea
              label="Reason"
              description="Shown on the script's page"
              value={reason}
              onChange={(e) => setReason(e.currentTarget.value)}
              required
              autosize
              minRows={3}
              data-autofocus
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setRejecting(false)}>
                Cancel
              </Button>
              <Button type="submit" color="red" loading={busy} disabled={!reason.trim()}>
                Reject
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </Stack>
  );
}
