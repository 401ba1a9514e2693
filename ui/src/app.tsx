import { lazy, Suspense, type ReactNode } from 'react';
import { Anchor, Code, Stack, Text, Title } from '@mantine/core';
import { Link, Navigate, Route, Routes, useLocation } from 'react-router-dom';
import { useAuth } from './auth/auth-provider';
import { AppLayout } from './components/app-layout';
import { Loading } from './components/states';
import { LoginPage } from './pages/login-page';
import { SetupPage } from './pages/setup-page';

// Every screen behind the login is its own chunk: the first load carries only the shell.
const DashboardPage = lazy(() => import('./pages/dashboard-page'));
const ScriptsPage = lazy(() => import('./pages/scripts-page'));
const ScriptPage = lazy(() => import('./pages/script-page'));
const ScriptEditPage = lazy(() => import('./pages/script-edit-page'));
const ScriptReviewPage = lazy(() => import('./pages/script-review-page'));
const SecretsPage = lazy(() => import('./pages/secrets-page'));
const SchedulesPage = lazy(() => import('./pages/schedules-page'));
const SchedulePage = lazy(() => import('./pages/schedule-page'));
const SessionsPage = lazy(() => import('./pages/sessions-page'));
const SessionChatPage = lazy(() => import('./pages/session-chat-page'));
const ChatPage = lazy(() => import('./pages/chat-page'));
const ActivityPage = lazy(() => import('./pages/activity-page'));

/**
 * The client routes; src/api/routes/ui.ts answers index.html for each of their first segments
 * (UI_CLIENT_ROUTES), so a reload or a pasted link opens the same screen.
 */
export function App() {
  const { state } = useAuth();
  const location = useLocation();
  if (state === 'checking') return <Loading label="Connecting to Steward…" />;
  if (state === 'setup') {
    return location.pathname === '/setup' ? <SetupPage /> : <Navigate to="/setup" replace />;
  }
  if (state === 'signed-out') {
    if (location.pathname === '/login') return <LoginPage />;
    const from = location.pathname === '/setup' ? '/' : location.pathname + location.search;
    return <Navigate to="/login" replace state={{ from }} />;
  }
  return (
    <AppLayout>
      <Suspense fallback={<Loading />}>
        <Routes>
          <Route path="/" element={<DashboardPage />} />
          <Route path="/scripts" element={<ScriptsPage />} />
          <Route path="/scripts/new" element={<ScriptEditPage />} />
          <Route path="/scripts/:name" element={<ScriptPage />} />
          <Route path="/scripts/:name/edit" element={<ScriptEditPage />} />
          <Route path="/scripts/:name/review" element={<ScriptReviewPage />} />
          <Route path="/secrets" element={<SecretsPage />} />
          <Route path="/schedules" element={<SchedulesPage />} />
          <Route path="/schedules/new" element={<SchedulePage />} />
          <Route path="/schedules/:id" element={<SchedulePage />} />
          <Route path="/sessions" element={<SessionsPage />} />
          <Route path="/sessions/:id" element={<SessionChatPage />} />
          <Route path="/chat" element={<ChatPage />} />
          <Route path="/activity" element={<ActivityPage />} />
          <Route path="/login" element={<AfterLogin />} />
          <Route path="/setup" element={<Navigate to="/" replace />} />
          <Route path="*" element={<NotFound />} />
        </Routes>
      </Suspense>
    </AppLayout>
  );
}

function AfterLogin(): ReactNode {
  const location = useLocation();
  const from = (location.state as { from?: string } | null)?.from;
  return <Navigate to={from && from !== '/login' ? from : '/'} replace />;
}

function NotFound() {
  const location = useLocation();
  return (
    <Stack gap="sm">
      <Title order={2}>Page not found</Title>
      <Text>
        Steward has no screen at <Code>{location.pathname}</Code>. The link may be old, or the name
        mistyped.
      </Text>
      <Anchor component={Link} to="/">
        Go to the dashboard
      </Anchor>
    </Stack>
  );
}
