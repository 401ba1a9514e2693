import {
  Alert,
  Anchor,
  Button,
  Code,
  Group,
  Modal,
  Stack,
  Text,
  Textarea,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router-dom';
import { api, ApiError, errorMessage } from '../api/client';
import type {
  Schedule,
  ScriptDetail,
  ScriptListEntry,
  SecretInfo,
  VersionEntry,
} from '../api/types';
import { useData } from '../api/use-data';
import { ScriptStatusBadge } from '../components/badges';
import { ReviewReach } from '../components/review-reach';
import { SideBySideDiff } from '../components/side-by-side-diff';
import { Loaded } from '../components/states';
import { nextPending } from '../review-facts';
import { scriptHash } from '../sha256';

interface Review {
  detail: ScriptDetail;
  /** The text the last approval covered, when there is one. */
  approved: { commit: string; source: string } | null;
  /** sha256 of `detail.source`, the text on screen, computed here. */
  shownHash: string;
  /** The history entry of the text on screen: who proposed it, when. */
  proposed: VersionEntry | null;
  secrets: SecretInfo[];
  schedules: Schedule[];
}

async function loadReview(name: string): Promise<Review> {
  const base = `/api/scripts/${encodeURIComponent(name)}`;
  const [detail, history, secrets, schedules] = await Promise.all([
    api.get<ScriptDetail>(base),
    api.get<{ versions: VersionEntry[] }>(`${base}/history`),
    api.get<{ secrets: SecretInfo[] }>('/api/secrets'),
    api.get<{ schedules: Schedule[] }>('/api/schedules'),
  ]);
  const approved = detail.approved_commit
    ? await api.get<{ commit: string; source: string }>(
        `${base}/history/${encodeURIComponent(detail.approved_commit)}`,
      )
    : null;
  return {
    detail,
    approved,
    shownHash: await scriptHash(detail.source),
    // Newest first: the head of the history is the text on screen.
    proposed: history.versions[0] ?? null,
    secrets: secrets.secrets,
    schedules: schedules.schedules,
  };
}

/**
 * The review: the pending text beside the last approved one (or the whole text when the script
 * is new). Approve sends the hash of exactly the text shown; when the script changed in the
 * meantime Steward answers 409 and the page shows the new diff instead.
 */
export default function ScriptReviewPage() {
  const { name = '' } = useParams();
  // A fresh page per script: "Approve and next" never shows one script's review under another's
  // name while the next one loads.
  return <Review key={name} name={name} />;
}

function Review({ name }: { name: string }) {
  const navigate = useNavigate();
  const location = useLocation();
  const arrived = (location.state as { notice?: string } | null)?.notice;
  const review = useData(() => loadReview(name), [name]);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState('');

  const queue = useData(() => api.get<{ scripts: ScriptListEntry[] }>('/api/scripts'), [name]);
  const next = queue.data ? nextPending(queue.data.scripts, name) : null;

  const approve = async (r: Review, andNext: boolean) => {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      await api.post(`/api/scripts/${encodeURIComponent(name)}/approve`, { hash: r.shownHash });
      const done = `${name} approved: the AI may run this text now.`;
      // The queue may have moved meanwhile: ask again which script waits next.
      const after = andNext
        ? nextPending((await api.get<{ scripts: ScriptListEntry[] }>('/api/scripts')).scripts, name)
        : null;
      if (after) {
        navigate(`/scripts/${encodeURIComponent(after)}/review`, { state: { notice: done } });
      } else {
        navigate(`/scripts/${encodeURIComponent(name)}`, {
          state: {
            notice: andNext ? `${done} No other script waits for review.` : done,
          },
        });
      }
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
      {arrived && (
        <Alert color="green" role="status">
          {arrived}
        </Alert>
      )}
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
          return (
            <Stack>
              <Group gap="sm">
                <ScriptStatusBadge status={detail.status} />
                <Text size="sm">
                  Hash of the text shown: <Code className="long-word">{r.shownHash}</Code>
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
              <ReviewReach
                detail={detail}
                proposed={r.proposed}
                secrets={r.secrets}
                schedules={r.schedules}
              />
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
                  onClick={() => void approve(r, false)}
                >
                  {upToDate ? 'Approved' : 'Approve this text'}
                </Button>
                {!upToDate && next && (
                  <Button
                    color="teal"
                    variant="light"
                    loading={busy}
                    disabled={r.shownHash !== detail.hash}
                    onClick={() => void approve(r, true)}
                  >
                    Approve and next
                  </Button>
                )}
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
