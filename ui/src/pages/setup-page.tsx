import {
  Alert,
  Button,
  Center,
  Paper,
  PasswordInput,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { api, ApiError, errorMessage } from '../api/client';
import { useAuth } from '../auth/auth-provider';
import { pageTitle } from '../page-title';
// Steward's own rules, so the form says what the API would refuse before sending.
import { passwordProblem, usernameProblem } from '../../../src/auth/password-policy.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * First start: create the administrator. From another machine Steward also wants the one-time
 * setup token it printed at start (`X-Setup-Token`), so the field shows when this page is not on
 * a loopback address, and after any answer that asks for it.
 */
export function SetupPage() {
  const { setupDone } = useAuth();
  const navigate = useNavigate();
  const [username, setUsername] = useState('admin');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [token, setToken] = useState('');
  const [needsToken, setNeedsToken] = useState(!LOOPBACK.has(window.location.hostname));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Rules are stated up front; a field is marked wrong only once the person has left it.
  const [left, setLeft] = useState({ username: false, password: false, confirm: false });
  const leave = (field: keyof typeof left) => () => setLeft((l) => ({ ...l, [field]: true }));

  useEffect(() => {
    document.title = pageTitle('/setup');
  }, []);

  const problem = password ? passwordProblem(password) : null;
  const nameProblem = usernameProblem(username);
  const mismatch = confirm !== '' && confirm !== password;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    setBusy(true);
    try {
      await api.request(
        'POST',
        '/api/setup',
        { username, password, confirm_password: confirm },
        { auth: false, headers: token ? { 'x-setup-token': token.trim() } : {} },
      );
      setupDone();
      navigate('/login', { replace: true });
    } catch (err) {
      if (err instanceof ApiError && err.code === 'setup_completed') {
        setupDone();
        navigate('/login', { replace: true });
        return;
      }
      if (err instanceof ApiError && err.code === 'forbidden') setNeedsToken(true);
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w={440} component="main">
        <form onSubmit={(e) => void submit(e)}>
          <Stack>
            <Title order={1} size="h2">
              Set up Steward
            </Title>
            <Text size="sm" c="dimmed">
              Create the administrator account. You review and approve every script the AI may run
              with it.
            </Text>
            <TextInput
              label="Username"
              value={username}
              onChange={(e) => setUsername(e.currentTarget.value)}
              onBlur={leave('username')}
              error={left.username ? nameProblem : null}
              required
              autoComplete="username"
              autoFocus
            />
            <PasswordInput
              label="Password"
              description="16 characters or more, or 12 with three kinds of characters"
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
              onBlur={leave('password')}
              error={left.password ? problem : null}
              // Mantine marks a password field's error only with data-invalid; say it to AT too.
              aria-invalid={left.password && !!problem}
              required
              autoComplete="new-password"
            />
            <PasswordInput
              label="Confirm password"
              value={confirm}
              onChange={(e) => setConfirm(e.currentTarget.value)}
              onBlur={leave('confirm')}
              error={left.confirm && mismatch ? 'The passwords differ' : null}
              aria-invalid={left.confirm && mismatch}
              required
              autoComplete="new-password"
            />
            {needsToken && (
              <TextInput
                label="Setup token"
                description="Printed by Steward at start and kept in data/setup_token"
                value={token}
                onChange={(e) => setToken(e.currentTarget.value)}
                required
                autoComplete="off"
              />
            )}
            {error && (
              <Alert color="red" role="alert">
                {error}
              </Alert>
            )}
            <Button type="submit" loading={busy} disabled={!!problem || !!nameProblem || mismatch}>
              Create administrator
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
