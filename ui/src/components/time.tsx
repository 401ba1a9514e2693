const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/** "3 minutes ago" with the exact UTC time on hover; "—" when absent. */
export function When({ at }: { at: string | number | null | undefined }) {
  if (at === null || at === undefined || at === '') return <span>—</span>;
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return <span>{String(at)}</span>;
  return (
    <time dateTime={date.toISOString()} title={date.toISOString()}>
      {fromNow(date)}
    </time>
  );
}

export function fromNow(date: Date, now = Date.now()): string {
  const seconds = Math.round((date.getTime() - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 60) return relative.format(seconds, 'second');
  if (abs < 3600) return relative.format(Math.round(seconds / 60), 'minute');
  if (abs < 86400) return relative.format(Math.round(seconds / 3600), 'hour');
  return relative.format(Math.round(seconds / 86400), 'day');
}
