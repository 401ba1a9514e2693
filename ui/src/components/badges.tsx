import { Badge } from '@mantine/core';

const scriptColors: Record<string, string> = {
  pending: 'yellow',
  approved: 'green',
  rejected: 'red',
};

export function ScriptStatusBadge({ status }: { status: string }) {
  return (
    <Badge color={scriptColors[status] ?? 'gray'} variant="light">
      {status}
    </Badge>
  );
}

const runColors: Record<string, string> = {
  success: 'green',
  error: 'red',
  running: 'blue',
  skipped: 'gray',
  delivered: 'green',
  failed: 'red',
  pending: 'yellow',
  unknown: 'orange',
};

export function RunStatusBadge({ status }: { status: string }) {
  return (
    <Badge color={runColors[status] ?? 'gray'} variant="light">
      {status}
    </Badge>
  );
}
