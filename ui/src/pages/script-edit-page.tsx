import { Alert, Anchor, Button, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { api, ApiError, errorMessage } from '../api/client';
import type { ScriptChanged, ScriptDetail } from '../api/types';
import CodeEditor, { type SourceProblem } from '../components/code-editor';
import { ErrorAlert, Loading } from '../components/states';
import { withoutPosition } from '../syntax-message';

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}\.star$/;

const TEMPLATE = `# @description: what this script does
# @author: admin
# @version: 1.0
# @secrets: API_KEY -> api.example.com

def main():
    # args: the run's arguments (a dict)
    return {"greeting": "hello " + args.get("name", "world")}
`;

/** Create a script (`/scripts/new`) or change one (`/scripts/:name/edit`); either is pending. */
export default function ScriptEditPage() {
  const { name: existing } = useParams();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [source, setSource] = useState(existing ? '' : TEMPLATE);
  const [loaded, setLoaded] = useState(!existing);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [problems, setProblems] = useState<SourceProblem[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!existing) return;
    api
      .get<ScriptDetail>(`/api/scripts/${encodeURIComponent(existing)}`)
      .then((d) => {
        setSource(d.source);
        setLoaded(true);
      })
      .catch(setLoadError);
  }, [existing]);

  const nameError =
    !existing && name && !NAME.test(name) ? 'Letters, digits, _ and -, ending in .star' : null;

  const save = async () => {
    setBusy(true);
    setError(null);
    setProblems([]);
    try {
      const target = existing ?? name;
      if (existing) {
        await api.put<ScriptChanged>(`/api/scripts/${encodeURIComponent(existing)}`, { source });
      } else {
        await api.post<ScriptChanged>('/api/scripts', { name, source });
      }
      navigate(`/scripts/${encodeURIComponent(target)}`, {
        state: { notice: `${target} saved. It is pending until you review and approve it.` },
      });
    } catch (err) {
      if (err instanceof ApiError && err.code === 'invalid_script') {
        const line = Number(err.body.line);
        const column = Number(err.body.column);
        if (Number.isFinite(line) && Number.isFinite(column)) {
          // The checker's message starts with "name:line:col: "; the position is said once.
          const message = withoutPosition(err.message);
          setProblems([{ line, column, message }]);
          setError(`Line ${line}, column ${column}: ${message}`);
        } else {
          setError(err.message);
        }
      } else {
        setError(errorMessage(err));
      }
    } finally {
      setBusy(false);
    }
  };

  if (loadError) return <ErrorAlert error={loadError} title="Could not load the script" />;
  if (!loaded) return <Loading label="Loading the script…" />;

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <Stack>
        <Group justify="space-between">
          <Title order={2}>{existing ? `Edit ${existing}` : 'New script'}</Title>
          <Anchor
            component={Link}
            to={existing ? `/scripts/${encodeURIComponent(existing)}` : '/scripts'}
          >
            Cancel
          </Anchor>
        </Group>
        {!existing && (
          <TextInput
            label="Name"
            placeholder="weather.star"
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={nameError}
            required
            w={360}
            data-autofocus
          />
        )}
        <Text size="sm" c="dimmed">
          Starlark. Declare secrets and where each may be sent in the header, e.g.{' '}
          <code># @secrets: API_KEY -&gt; api.example.com</code>. Saving makes the script pending:
          it runs only after you approve it. In the editor Tab indents; press Escape, then Tab, to
          move on.
        </Text>
        <CodeEditor
          value={source}
          onChange={(next) => {
            setSource(next);
            // The refusal was about the text as it was: an edit clears it until the next save.
            setProblems((p) => (p.length === 0 ? p : []));
            setError(null);
          }}
          problems={problems}
          label="Script source"
          minHeight={320}
        />
        {error && (
          <Alert color="red" role="alert" title="Not saved">
            {error}
          </Alert>
        )}
        <Group>
          <Button
            type="submit"
            loading={busy}
            disabled={(!existing && (!name || !!nameError)) || !source.trim()}
          >
            {existing ? 'Save changes' : 'Create script'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
