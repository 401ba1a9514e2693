import { Alert, Button, Center, Group, Loader, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { errorMessage } from '../api/client';
import type { DataState } from '../api/use-data';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <Center py="xl" role="status" aria-live="polite">
      <Group gap="xs">
        <Loader size="sm" />
        <Text c="dimmed">{label}</Text>
      </Group>
    </Center>
  );
}

export function ErrorAlert({
  error,
  title = 'Something went wrong',
  onRetry,
}: {
  error: unknown;
  title?: string;
  onRetry?: () => void;
}) {
  return (
    <Alert color="red" title={title} role="alert">
      <Text size="sm">{errorMessage(error)}</Text>
      {onRetry && (
        <Button mt="sm" size="xs" variant="light" color="red" onClick={onRetry}>
          Try again
        </Button>
      )}
    </Alert>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return (
    <Text c="dimmed" py="lg" ta="center">
      {children}
    </Text>
  );
}

/** Loading, error or the content: the three states every list and page goes through. */
export function Loaded<T>({
  state,
  children,
  what,
}: {
  state: DataState<T>;
  what: string;
  children: (data: T) => ReactNode;
}) {
  if (state.data === undefined) {
    if (state.error) {
      return (
        <ErrorAlert
          error={state.error}
          title={`Could not load ${what}`}
          onRetry={() => void state.reload()}
        />
      );
    }
    return <Loading label={`Loading ${what}…`} />;
  }
  return (
    <>
      {state.error ? (
        <ErrorAlert
          error={state.error}
          title={`Could not refresh ${what}`}
          onRetry={() => void state.reload()}
        />
      ) : null}
      {children(state.data)}
    </>
  );
}
