import {
  Anchor,
  Autocomplete,
  Badge,
  Button,
  Code,
  Group,
  Select,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { api } from '../api/client';
import type { AuditEntry, AuditPage } from '../api/types';
import { useData } from '../api/use-data';
import {
  actionAreas,
  actorLabel,
  auditQuery,
  channelLabels,
  detailSummary,
  entryLink,
  noFilters,
  type AuditFilters,
} from '../audit-view';
import { Empty, ErrorAlert, Loaded } from '../components/states';
import { When } from '../components/time';
import { formatDateTime } from '../format-time';

const outcomeColors: Record<string, string> = { ok: 'green', failed: 'red', refused: 'orange' };

const filterKeys = Object.keys(noFilters) as Array<keyof AuditFilters>;

function filtersOf(params: URLSearchParams): AuditFilters {
  const f = { ...noFilters };
  for (const key of filterKeys) f[key] = params.get(key) ?? '';
  return f;
}

/**
 * The audit log, newest first: who did what, through which channel, to which script or schedule.
 * Filters live in the address, so a filtered view can be reloaded or shared; "Load older
 * entries" follows the API's cursor (a sparse filter may answer a short page with more to come).
 */
export default function ActivityPage() {
  const [params, setParams] = useSearchParams();
  const applied = filtersOf(params);
  const key = filterKeys.map((k) => applied[k]).join('\u0000');
  const [form, setForm] = useState<AuditFilters>(applied);
  const first = useData(() => api.get<AuditPage>(auditQuery(applied)), [key]);
  const [older, setOlder] = useState<AuditEntry[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [moreError, setMoreError] = useState<unknown>(null);
  const [loadingMore, setLoadingMore] = useState(false);

  // The filters this page put in the address itself: the form already shows them, and may
  // have been edited since; only an address changed from elsewhere (a link, Back) refills it.
  const ownKey = useRef<string | null>(null);
  useEffect(() => {
    if (ownKey.current !== key) setForm(filtersOf(params));
    ownKey.current = null;
    setOlder([]);
    setMoreError(null);
  }, [key]);
  useEffect(() => {
    setOlder([]);
    setCursor(first.data?.next_cursor ?? null);
  }, [first.data]);

  const apply = (next: AuditFilters) => {
    const q = new URLSearchParams();
    for (const k of filterKeys) if (next[k].trim()) q.set(k, next[k].trim());
    ownKey.current = filterKeys.map((k) => q.get(k) ?? '').join('\u0000');
    setParams(q);
  };

  const loadMore = async () => {
    if (!cursor) return;
    setLoadingMore(true);
    setMoreError(null);
    try {
      const page = await api.get<AuditPage>(auditQuery(applied, cursor));
      setOlder((o) => [...o, ...page.entries]);
      setCursor(page.next_cursor);
    } catch (err) {
      setMoreError(err);
    } finally {
      setLoadingMore(false);
    }
  };

  const set = (k: keyof AuditFilters) => (value: string | null) =>
    setForm((f) => ({ ...f, [k]: value ?? '' }));

  return (
    <Stack>
      <Title order={2}>Activity</Title>
      <Text size="sm" c="dimmed">
        Everything done to Steward, by you, the AI, schedules and chat, newest first. Times are in
        your browser&apos;s zone.
      </Text>
      <form
        aria-label="Filter the activity"
        onSubmit={(e) => {
          e.preventDefault();
          apply(form);
        }}
      >
        <Group align="flex-end" gap="sm" className="activity-filters">
          <Autocomplete
            label="Action"
            description="An area (script) or one action (script.approve)"
            data={actionAreas}
            value={form.action}
            onChange={set('action')}
          />
          <TextInput
            label="Actor"
            description="admin, ai, mcp, schedule:<id>…"
            value={form.actor}
            onChange={(e) => set('actor')(e.currentTarget.value)}
          />
          <Select
            label="Channel"
            description="Through what it came"
            placeholder="Any"
            clearable
            data={Object.entries(channelLabels).map(([value, label]) => ({ value, label }))}
            value={form.channel || null}
            onChange={set('channel')}
          />
          <TextInput
            type="datetime-local"
            label="From"
            description="Not before"
            value={form.since}
            onChange={(e) => set('since')(e.currentTarget.value)}
          />
          <TextInput
            type="datetime-local"
            label="Until"
            description="Not after"
            value={form.until}
            onChange={(e) => set('until')(e.currentTarget.value)}
          />
          <Group gap="xs">
            <Button type="submit">Filter</Button>
            <Button
              variant="default"
              onClick={() => {
                setForm(noFilters);
                apply(noFilters);
              }}
            >
              Clear
            </Button>
          </Group>
        </Group>
      </form>
      <Loaded state={first} what="the activity">
        {(page) => {
          const entries = [...page.entries, ...older];
          if (entries.length === 0 && !cursor) {
            return <Empty>No activity matches these filters.</Empty>;
          }
          return (
            <Stack gap="sm">
              <ol className="activity-list" aria-label="Activity entries">
                {entries.map((e) => (
                  <ActivityItem key={e.id} entry={e} />
                ))}
              </ol>
              {moreError ? <ErrorAlert error={moreError} title="Could not load more" /> : null}
              {cursor ? (
                <Group>
                  <Button variant="default" loading={loadingMore} onClick={() => void loadMore()}>
                    Load older entries
                  </Button>
                  {page.entries.length === 0 && older.length === 0 && (
                    <Text size="sm" c="dimmed">
                      None among the latest entries; older ones may match.
                    </Text>
                  )}
                </Group>
              ) : (
                <Text size="sm" c="dimmed">
                  {entries.length} {entries.length === 1 ? 'entry' : 'entries'}: that is all.
                </Text>
              )}
            </Stack>
          );
        }}
      </Loaded>
    </Stack>
  );
}

function ActivityItem({ entry }: { entry: AuditEntry }) {
  const link = entryLink(entry);
  const summary = detailSummary(entry.details);
  return (
    <li className="activity-item">
      <Group gap="xs" wrap="wrap">
        <Code>{entry.action}</Code>
        {link ? (
          <Anchor component={Link} to={link} className="long-word">
            {entry.target || link}
          </Anchor>
        ) : (
          entry.target && <span className="long-word">{entry.target}</span>
        )}
        <Badge color={outcomeColors[entry.outcome] ?? 'gray'} variant="light">
          {entry.outcome}
        </Badge>
      </Group>
      <Text size="sm">
        by <strong>{actorLabel(entry.actor)}</strong>
        {actorLabel(entry.actor) !== entry.actor && ` (${entry.actor})`} through{' '}
        <strong>{channelLabels[entry.channel]}</strong> ·{' '}
        <time dateTime={entry.at}>{formatDateTime(new Date(entry.at))}</time> (
        <When at={entry.at} />)
      </Text>
      {summary && (
        <Text size="xs" c="dimmed" className="long-word">
          {summary}
        </Text>
      )}
    </li>
  );
}
