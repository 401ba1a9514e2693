import { formatDateTime, fromNow } from '../format-time';

/**
 * "3 minutes ago", with the exact time and its zone on hover and for screen readers (the
 * `title` is not read by every one of them); "—" when absent.
 */
export function When({ at }: { at: string | number | null | undefined }) {
  if (at === null || at === undefined || at === '') return <span>—</span>;
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return <span>{String(at)}</span>;
  const exact = formatDateTime(date);
  return (
    <time dateTime={date.toISOString()} title={exact}>
      {fromNow(date)}
      <span className="visually-hidden"> ({exact})</span>
    </time>
  );
}
