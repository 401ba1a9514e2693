import {
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  Paper,
  Stack,
  Text,
  Textarea,
  Title,
} from '@mantine/core';
import { useCallback, useEffect, useRef, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { api } from '../api/client';
import type { Message, Session } from '../api/types';
import { useData } from '../api/use-data';
import { LongText } from '../components/long-text';
import { Markdown } from '../components/markdown';
import { Loaded } from '../components/states';

interface Line {
  id: string;
  role: 'user' | 'assistant' | 'error';
  text: string;
  streaming?: boolean;
}

type Frame =
  | { type: 'connected'; session_id: string }
  | { type: 'text'; content: string }
  | { type: 'done' }
  | { type: 'error'; content: string };

function textOf(message: Message): string {
  return message.parts
    .filter((p): p is { type: 'text'; text: string } => {
      const part = p as { type?: unknown; text?: unknown };
      return part.type === 'text' && typeof part.text === 'string';
    })
    .map((p) => p.text)
    .join('');
}

function toLines(messages: Message[]): Line[] {
  return messages
    .map((m): Line => ({
      id: m.id,
      role: m.role === 'user' ? 'user' : 'assistant',
      text: textOf(m),
    }))
    .filter((l) => l.text !== '');
}

type Connection = 'connecting' | 'open' | 'closed';

/**
 * A conversation: the stored messages, then the chat WebSocket (`?token=` carries the access
 * token, since an upgrade request cannot carry headers); a reply streams in as `text` frames
 * until `done`.
 */
export default function SessionChatPage() {
  const { id = '' } = useParams();
  const session = useData(() => api.get<Session>(`/api/sessions/${encodeURIComponent(id)}`), [id]);
  const history = useData(
    () => api.get<Message[]>(`/api/sessions/${encodeURIComponent(id)}/messages?limit=200`),
    [id],
  );
  const [lines, setLines] = useState<Line[]>([]);
  const [draft, setDraft] = useState('');
  const [connection, setConnection] = useState<Connection>('connecting');
  const [replying, setReplying] = useState(false);
  const socket = useRef<WebSocket | null>(null);
  const end = useRef<HTMLDivElement>(null);
  const seq = useRef(0);
  const attempts = useRef(0);
  const again = useRef<ReturnType<typeof setTimeout>>(undefined);

  useEffect(() => {
    if (history.data) setLines(toLines(history.data));
  }, [history.data]);

  const connect = useCallback(
    (retried = false) => {
      const token = api.token;
      const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
      const url = `${scheme}//${window.location.host}/api/sessions/${encodeURIComponent(id)}/chat?token=${encodeURIComponent(token ?? '')}`;
      const ws = new WebSocket(url);
      let opened = false;
      socket.current = ws;
      setConnection('connecting');
      ws.onmessage = (event) => {
        let frame: Frame;
        try {
          frame = JSON.parse(String(event.data)) as Frame;
        } catch {
          return;
        }
        if (frame.type === 'connected') {
          opened = true;
          setConnection('open');
        } else if (frame.type === 'text') {
          setLines((prev) => {
            const last = prev.at(-1);
            if (last?.role === 'assistant' && last.streaming) {
              return [...prev.slice(0, -1), { ...last, text: last.text + frame.content }];
            }
            return [
              ...prev,
              {
                id: `live-${++seq.current}`,
                role: 'assistant',
                text: frame.content,
                streaming: true,
              },
            ];
          });
        } else if (frame.type === 'done') {
          setReplying(false);
          setLines((prev) => prev.map((l) => (l.streaming ? { ...l, streaming: false } : l)));
        } else if (frame.type === 'error') {
          setReplying(false);
          setLines((prev) => [
            ...prev.map((l) => (l.streaming ? { ...l, streaming: false } : l)),
            { id: `err-${++seq.current}`, role: 'error', text: frame.content },
          ]);
        }
      };
      ws.onclose = () => {
        if (socket.current !== ws) return;
        setReplying(false);
        if (opened) attempts.current = 0;
        // Steward restarted or the network dropped: try again by itself, backing off to 30 s.
        const later = () => {
          setConnection('closed');
          const delay = Math.min(30_000, 1_000 * 2 ** attempts.current++);
          clearTimeout(again.current);
          again.current = setTimeout(() => {
            if (socket.current === ws) connect();
          }, delay);
        };
        // Refused before it opened: most likely an expired access token. Renew it once.
        if (!opened && !retried) {
          void api.refresh().then((s) => {
            if (socket.current !== ws) return;
            if (s) connect(true);
            else later();
          });
          return;
        }
        later();
      };
    },
    [id],
  );

  useEffect(() => {
    attempts.current = 0;
    connect();
    return () => {
      clearTimeout(again.current);
      const ws = socket.current;
      socket.current = null;
      ws?.close();
    };
  }, [connect]);

  useEffect(() => {
    end.current?.scrollIntoView?.({ block: 'end' });
  }, [lines]);

  const send = () => {
    const text = draft.trim();
    const ws = socket.current;
    if (!text || !ws || ws.readyState !== WebSocket.OPEN) return;
    ws.send(JSON.stringify({ type: 'message', content: text }));
    setLines((prev) => [...prev, { id: `me-${++seq.current}`, role: 'user', text }]);
    setDraft('');
    setReplying(true);
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>{session.data?.title || session.data?.slug || 'Session'}</Title>
        <Group>
          <Badge
            color={connection === 'open' ? 'green' : connection === 'connecting' ? 'yellow' : 'red'}
            variant="light"
            aria-live="polite"
          >
            {connection === 'open'
              ? 'connected'
              : connection === 'closed'
                ? 'disconnected, retrying'
                : connection}
          </Badge>
          {connection === 'closed' && (
            <Button
              size="xs"
              variant="default"
              onClick={() => {
                clearTimeout(again.current);
                attempts.current = 0;
                connect();
              }}
            >
              Reconnect now
            </Button>
          )}
          <Anchor component={Link} to="/sessions">
            All sessions
          </Anchor>
        </Group>
      </Group>
      <Loaded state={history} what="messages">
        {() => (
          <Paper withBorder p="md" mih={240}>
            <div className="chat-log" role="log" aria-label="Conversation" aria-live="polite">
              {lines.length === 0 && (
                <Text c="dimmed" ta="center">
                  No messages yet. Say hello.
                </Text>
              )}
              {lines.map((l) =>
                l.role === 'error' ? (
                  <Alert key={l.id} color="red" role="alert">
                    {l.text}
                  </Alert>
                ) : (
                  <div key={l.id} className={`chat-bubble ${l.role}`}>
                    <Text size="xs" c="dimmed" component="div">
                      {l.role === 'user' ? 'You' : 'Assistant'}
                      {l.streaming ? ' (typing…)' : ''}
                    </Text>
                    {l.role === 'user' ? (
                      <Text className="pre-wrap">{l.text}</Text>
                    ) : l.streaming ? (
                      <Markdown text={l.text} />
                    ) : (
                      <LongText text={l.text} label="Reply" filename={`reply-${l.id}.md`}>
                        <Markdown text={l.text} />
                      </LongText>
                    )}
                  </div>
                ),
              )}
              <div ref={end} />
            </div>
          </Paper>
        )}
      </Loaded>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          send();
        }}
      >
        <Group align="flex-end">
          <Textarea
            label="Message"
            value={draft}
            onChange={(e) => setDraft(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.shiftKey) {
                e.preventDefault();
                send();
              }
            }}
            autosize
            minRows={2}
            flex={1}
            description="Enter sends; Shift+Enter starts a new line"
          />
          <Button
            type="submit"
            disabled={connection !== 'open' || !draft.trim()}
            loading={replying}
          >
            Send
          </Button>
        </Group>
      </form>
    </Stack>
  );
}
