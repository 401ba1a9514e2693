import { Alert, Anchor, Badge, Code, Group, List, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router-dom';
import type { Schedule, ScriptDetail, SecretInfo, VersionEntry } from '../api/types';
import { proposerLabel, whileUndecided } from '../review-facts';
import { When } from './time';
import { formatDateTime } from '../format-time';

function New({ on }: { on: boolean }) {
  return on ? (
    <Badge color="red.9" variant="filled" size="sm" className="new-mark">
      new
    </Badge>
  ) : null;
}

/**
 * Above the diff, what a careful reviewer weighs: who proposed the text and when, what runs
 * until the decision, which schedules run the script, and what the text can reach (read by
 * Steward from the text, not told by its author), with what the last approval did not cover
 * marked new; whether each secret it declares is set; characters no one can see.
 */
export function ReviewReach({
  detail,
  proposed,
  secrets,
  schedules,
}: {
  detail: ScriptDetail;
  /** The version on screen, from the history: its author and time. */
  proposed: VersionEntry | null;
  secrets: SecretInfo[];
  schedules: Schedule[];
}) {
  const caps = detail.capabilities;
  const fresh = detail.new_capabilities;
  // Without an approved version everything is new: no marks, one sentence says so.
  const isNew = (list: string[] | undefined, item: string) => !!fresh && !!list?.includes(item);
  const freshSecrets = new Map(fresh?.secrets.map((s) => [s.name, s]));
  const state = whileUndecided(detail);
  const using = schedules.filter((s) => s.type === 'script' && s.script_name === detail.name);
  const isSet = (name: string) => secrets.find((s) => s.name === name)?.set ?? false;

  return (
    <Stack gap="sm" component="section" aria-labelledby="reach-title">
      <Title order={3} size="h4" id="reach-title">
        Before you decide
      </Title>
      <Text size="sm">
        Proposed by <strong>{proposed ? proposerLabel(proposed.author) : 'unknown'}</strong>
        {proposed && (
          <>
            ,{' '}
            <time dateTime={proposed.timestamp}>
              {formatDateTime(new Date(proposed.timestamp))}
            </time>{' '}
            (<When at={proposed.timestamp} />) as version <Code>{proposed.commit.slice(0, 8)}</Code>
            {proposed.message ? ` — “${proposed.message}”` : ''}
          </>
        )}
      </Text>
      <Alert color={state.tone} title="Until you decide" role="status">
        {state.text}
      </Alert>
      <Text size="sm">
        <strong>Schedules that run it: </strong>
        {using.length === 0
          ? 'none.'
          : using.map((s, i) => (
              <span key={s.id}>
                {i > 0 && ', '}
                <Anchor component={Link} to={`/schedules/${encodeURIComponent(s.id)}`}>
                  {s.name}
                </Anchor>{' '}
                ({s.enabled ? 'enabled' : 'disabled'}, <Code>{s.cron_expr}</Code>)
              </span>
            ))}
      </Text>

      <Title order={4} size="h5">
        What this text can reach
      </Title>
      <Text size="xs" c="dimmed">
        Read by Steward from the text itself.{' '}
        {fresh
          ? 'Marked new: what the last approved version could not reach.'
          : 'Never approved: all of it is new.'}
      </Text>
      {caps.hidden_characters.length > 0 && (
        <Alert color="red" title="Characters you cannot see" role="alert">
          <Text size="sm">
            The text holds {caps.hidden_characters.length} invisible or direction-changing character
            {caps.hidden_characters.length === 1 ? '' : 's'}: they can make code read differently
            from what runs. Each is marked by its code in the diff below.
          </Text>
          <List size="sm">
            {caps.hidden_characters.slice(0, 20).map((h, i) => (
              <List.Item key={i}>
                line {h.line}, column {h.column}: <Code>{h.code}</Code> {h.name}
              </List.Item>
            ))}
          </List>
        </Alert>
      )}
      <div>
        <Text size="sm" fw={600}>
          Secrets
        </Text>
        {caps.secrets.length === 0 ? (
          <Text size="sm" c="dimmed">
            None declared.
          </Text>
        ) : (
          <List size="sm" spacing={4} aria-label="Secrets it declares">
            {caps.secrets.map((s) => {
              const f = freshSecrets.get(s.name);
              const widened = !!fresh && !!f;
              return (
                <List.Item key={s.name}>
                  <Group gap={6} wrap="wrap">
                    <Code>{s.name}</Code>
                    <New on={widened} />
                    <Badge color={isSet(s.name) ? 'green' : 'orange'} variant="light" size="sm">
                      {isSet(s.name) ? 'set' : 'not set'}
                    </Badge>
                    <Text size="sm" span>
                      sent only to{' '}
                      {s.destinations.length === 0 ? (
                        <em>no host declared</em>
                      ) : (
                        s.destinations.map((d, i) => (
                          <span key={d}>
                            {i > 0 && ', '}
                            <Code>{d}</Code>
                            <New on={widened && !!f?.destinations.includes(d)} />
                          </span>
                        ))
                      )}
                      , placed {s.placement ? `in ${s.placement}` : 'anywhere in a request'}
                      <New on={widened && f?.destinations.length === 0} />
                    </Text>
                  </Group>
                </List.Item>
              );
            })}
          </List>
        )}
      </div>
      <ReachList
        title="Hosts the code calls"
        empty="No URL written in the code."
        items={caps.hosts}
        isNew={(h) => isNew(fresh?.hosts, h)}
      />
      <ReachList
        title="Host modules it uses"
        empty="None."
        items={caps.modules}
        isNew={(m) => isNew(fresh?.modules, m)}
      />
      <ReachList
        title="Functions a run may call"
        empty="None."
        items={caps.functions}
        isNew={(f) => isNew(fresh?.functions, f)}
      />
    </Stack>
  );
}

function ReachList({
  title,
  empty,
  items,
  isNew,
}: {
  title: string;
  empty: string;
  items: string[];
  isNew: (item: string) => boolean;
}) {
  return (
    <div>
      <Text size="sm" fw={600}>
        {title}
      </Text>
      {items.length === 0 ? (
        <Text size="sm" c="dimmed">
          {empty}
        </Text>
      ) : (
        <Group gap={8} wrap="wrap" component="ul" className="reach-list" aria-label={title}>
          {items.map((item) => (
            <li key={item}>
              <Code className="long-word">{item}</Code>
              <New on={isNew(item)} />
            </li>
          ))}
        </Group>
      )}
    </div>
  );
}
