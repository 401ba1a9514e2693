import {
  Alert,
  Anchor,
  Button,
  Group,
  List,
  SegmentedControl,
  Select,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { api, errorMessage } from '../api/client';
import type { Schedule, ScheduleRun, ScriptListEntry } from '../api/types';
import { useData } from '../api/use-data';
import { RunStatusBadge } from '../components/badges';
import { ConfirmButton } from '../components/confirm-button';
import { DataTable } from '../components/data-table';
import { LongText } from '../components/long-text';
import { Empty, ErrorAlert, Loaded, Loading } from '../components/states';
import { When } from '../components/time';
import {
  blankSchedule,
  changedBody,
  createBody,
  toScheduleForm,
  type ScheduleForm,
} from '../schedule-form';
import { cronInWords, formatIn, nextFirings, timeZones } from '../schedule-time';

type Form = ScheduleForm;

export default function SchedulePage() {
  const { id } = useParams();
  const schedule = useData(
    () =>
      id ? api.get<Schedule>(`/api/schedules/${encodeURIComponent(id)}`) : Promise.resolve(null),
    [id],
  );
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>{id ? (schedule.data?.name ?? 'Schedule') : 'New schedule'}</Title>
        <Anchor component={Link} to="/schedules">
          All schedules
        </Anchor>
      </Group>
      <Loaded state={schedule} what="the schedule">
        {(s) => (
          <Stack gap="xl">
            <ScheduleForm
              key={s?.id ?? 'new'}
              existing={s}
              onSaved={() => void schedule.reload()}
            />
            {s && <Runs schedule={s} onChange={() => void schedule.reload()} />}
          </Stack>
        )}
      </Loaded>
    </Stack>
  );
}

function ScheduleForm({ existing, onSaved }: { existing: Schedule | null; onSaved: () => void }) {
  const navigate = useNavigate();
  const initial = () =>
    existing
      ? toScheduleForm(existing)
      : blankSchedule(Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  const [form, setForm] = useState<Form>(initial);
  // The schedule as the form last loaded it: a save sends only what differs from it.
  const [base, setBase] = useState<Form>(initial);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const scripts = useData(() => api.get<{ scripts: ScriptListEntry[] }>('/api/scripts'), []);
  const zones = useMemo(timeZones, []);
  const preview = nextFirings(form.cron_expr, form.timezone, 5);
  const [dirty, setDirty] = useState(false);
  const set = <K extends keyof Form>(key: K, value: Form[K]) => {
    setSaved(false);
    setDirty(true);
    setForm((f) => ({ ...f, [key]: value }));
  };
  // The schedule changed on the server (a run-once run disabled it, say): show that, unless
  // the administrator is in the middle of editing.
  useEffect(() => {
    if (existing && !dirty) {
      setForm(toScheduleForm(existing));
      setBase(toScheduleForm(existing));
    }
  }, [existing?.updated_at, existing?.enabled]);

  const save = async () => {
    setBusy(true);
    setError(null);
    try {
      if (existing) {
        const changes = changedBody(base, form);
        if (Object.keys(changes).length > 0) {
          await api.put(`/api/schedules/${encodeURIComponent(existing.id)}`, changes);
        }
        setSaved(true);
        setDirty(false);
        // Shows the schedule as it now is, fields the server changed meanwhile included.
        onSaved();
      } else {
        const created = await api.post<Schedule>('/api/schedules', createBody(form));
        navigate(`/schedules/${encodeURIComponent(created.id)}`, { replace: true });
      }
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <Stack maw={720}>
        <TextInput
          label="Name"
          value={form.name}
          onChange={(e) => set('name', e.currentTarget.value)}
          required
        />
        <div>
          <Text size="sm" fw={500} id="type-label">
            What runs
          </Text>
          <SegmentedControl
            aria-labelledby="type-label"
            value={form.type}
            onChange={(v) => set('type', v as Form['type'])}
            data={[
              { value: 'script', label: 'A script' },
              { value: 'agent', label: 'An AI prompt' },
            ]}
          />
        </div>
        {form.type === 'script' ? (
          <Select
            label="Script"
            required
            searchable
            value={form.script_name || null}
            onChange={(v) => set('script_name', v ?? '')}
            data={(scripts.data?.scripts ?? []).map((s) => ({
              value: s.name,
              label: `${s.name}${s.status === 'approved' ? '' : ` (${s.status})`}`,
            }))}
            nothingFoundMessage="No script of that name"
            error={scripts.error ? errorMessage(scripts.error) : null}
          />
        ) : (
          <Textarea
            label="Prompt"
            description="Sent to the AI at each firing; its reply is the run's output"
            value={form.prompt}
            onChange={(e) => set('prompt', e.currentTarget.value)}
            autosize
            minRows={3}
            required
          />
        )}
        <Group align="flex-start" grow>
          <TextInput
            label="Cron"
            description="minute hour day-of-month month day-of-week (seconds first optional)"
            value={form.cron_expr}
            onChange={(e) => set('cron_expr', e.currentTarget.value)}
            error={'error' in preview ? preview.error : null}
            classNames={{ input: 'mono' }}
            required
          />
          <Select
            label="Time zone"
            searchable
            value={form.timezone}
            onChange={(v) => set('timezone', v ?? 'UTC')}
            data={zones}
            limit={50}
          />
        </Group>
        {'fires' in preview && (
          <div aria-live="polite">
            <Text size="sm" fw={500}>
              {cronInWords(form.cron_expr)} — next five firings ({form.timezone}):
            </Text>
            <List size="sm">
              {preview.fires.map((d) => (
                <List.Item key={d.getTime()}>{formatIn(d, form.timezone)}</List.Item>
              ))}
            </List>
          </div>
        )}
        <Group align="flex-start" grow>
          <Select
            label="Send the output to"
            value={form.provider}
            onChange={(v) => set('provider', v ?? '')}
            data={[
              { value: '', label: 'Nowhere (keep it in the run history)' },
              { value: 'telegram', label: 'Telegram' },
              { value: 'discord', label: 'Discord' },
              { value: 'slack', label: 'Slack' },
              { value: 'webhook', label: 'Webhook' },
            ]}
          />
          <TextInput
            label="Channel"
            description="Telegram chat id, Discord or Slack channel id, or a webhook name"
            value={form.channel_id}
            onChange={(e) => set('channel_id', e.currentTarget.value)}
            disabled={!form.provider}
            required={!!form.provider}
          />
        </Group>
        <Group>
          <Switch
            label="Enabled"
            checked={form.enabled}
            onChange={(e) => set('enabled', e.currentTarget.checked)}
          />
          <Switch
            label="Run once, then disable"
            checked={form.run_once}
            onChange={(e) => set('run_once', e.currentTarget.checked)}
          />
        </Group>
        {error && (
          <Alert color="red" role="alert" title="Not saved">
            {error}
          </Alert>
        )}
        {saved && (
          <Text c="teal.9" size="sm" role="status">
            Saved.
          </Text>
        )}
        <Group>
          <Button type="submit" loading={busy} disabled={'error' in preview}>
            {existing ? 'Save changes' : 'Create schedule'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function Runs({ schedule, onChange }: { schedule: Schedule; onChange: () => void }) {
  const navigate = useNavigate();
  const base = `/api/schedules/${encodeURIComponent(schedule.id)}`;
  const runs = useData(() => api.get<{ runs: ScheduleRun[] }>(`${base}/runs`), [base]);
  const [error, setError] = useState<unknown>(null);
  const [waiting, setWaiting] = useState(false);
  const triggeredAt = useRef(0);

  // After "Run now", look for the run every 3 s for a minute (the API allows 60 calls a minute).
  useEffect(() => {
    if (!waiting) return;
    let polls = 0;
    const timer = setInterval(() => {
      polls += 1;
      void runs.reload();
      if (polls >= 20) setWaiting(false);
    }, 3000);
    return () => clearInterval(timer);
  }, [waiting, runs.reload]);

  const newest = runs.data?.runs[0];
  useEffect(() => {
    if (waiting && newest && new Date(newest.finished_at).getTime() >= triggeredAt.current) {
      setWaiting(false);
      onChange();
    }
  }, [newest, waiting, onChange]);

  const runNow = async () => {
    setError(null);
    try {
      // A second of slack for clocks: the run's finish time is the server's.
      triggeredAt.current = Date.now() - 1000;
      await api.post(`${base}/run`);
      setWaiting(true);
    } catch (err) {
      setError(err);
    }
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={3} size="h4">
          Runs
        </Title>
        <Group>
          <Button variant="default" onClick={() => void runs.reload()}>
            Refresh
          </Button>
          <Button onClick={() => void runNow()} loading={waiting}>
            Run now
          </Button>
          <ConfirmButton
            title={`Delete ${schedule.name}?`}
            message="The schedule and its run history are removed."
            confirmLabel="Delete"
            onConfirm={async () => {
              await api.delete(base);
              navigate('/schedules');
            }}
          >
            Delete schedule
          </ConfirmButton>
        </Group>
      </Group>
      {waiting && <Loading label="Triggered; waiting for the run to finish…" />}
      {error ? <ErrorAlert error={error} title="Could not run it" /> : null}
      {schedule.last_run_error && (
        <Alert color="red" title="Last run failed">
          <span className="pre-wrap">{schedule.last_run_error}</span>
        </Alert>
      )}
      <Loaded state={runs} what="runs">
        {({ runs: list }) =>
          list.length === 0 ? (
            <Empty>No runs yet.</Empty>
          ) : (
            <DataTable striped columns={['Finished', 'Status', 'Delivery', 'Output or error']}>
              {list.map((r) => (
                <Table.Tr key={r.id}>
                  <Table.Td>
                    <When at={r.finished_at} />
                  </Table.Td>
                  <Table.Td>
                    <RunStatusBadge status={r.status} />
                  </Table.Td>
                  <Table.Td>
                    {r.delivery ? (
                      <Group gap={4}>
                        <RunStatusBadge status={r.delivery.status} />
                        {r.delivery.error && <Text size="xs">{r.delivery.error}</Text>}
                      </Group>
                    ) : (
                      <Text size="sm" c="dimmed">
                        not sent
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    {r.error ? (
                      <LongText text={r.error} label="Error" filename={`run-${r.id}-error.txt`} />
                    ) : r.output ? (
                      <LongText text={r.output} label="Output" filename={`run-${r.id}.txt`} />
                    ) : (
                      <Text size="sm" c="dimmed">
                        (no output)
                      </Text>
                    )}
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
