import { Alert } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { api, ApiError } from '../api/client';
import type { Pairing, ScriptListEntry } from '../api/types';

/** How often the navigation's counts are refreshed, and how often while Steward is away. */
const EVERY_MS = 10_000;
const AWAY_EVERY_MS = 3_000;

export interface LiveStatus {
  /** Scripts waiting for review; null until known. */
  pending: number | null;
  /** Chat users asking to pair; null until known (or without chat). */
  pairings: number | null;
  /** Steward did not answer the last poll (network error or a gateway's 502/503/504). */
  unreachable: boolean;
}

function isAway(err: unknown): boolean {
  return err instanceof ApiError && [0, 502, 503, 504].includes(err.status);
}

/**
 * The counts the navigation shows, refreshed without a reload: on a timer, when the window
 * comes back into view or online, and on every new screen (`key`), so an approval made on one
 * screen shows on the next. A poll that finds Steward away raises the banner, and polls come
 * faster until one gets through, which lowers it.
 */
export function useLiveStatus(key: string): LiveStatus {
  const [status, setStatus] = useState<LiveStatus>({
    pending: null,
    pairings: null,
    unreachable: false,
  });
  const away = useRef(false);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const poll = useRef<() => void>(() => {});

  useEffect(() => {
    let live = true;
    const schedule = () => {
      clearTimeout(timer.current);
      timer.current = setTimeout(() => poll.current(), away.current ? AWAY_EVERY_MS : EVERY_MS);
    };
    poll.current = () => {
      void Promise.allSettled([
        api.get<{ scripts: ScriptListEntry[] }>('/api/scripts'),
        api.get<Pairing[]>('/api/chat/pairings'),
      ]).then(([scripts, pairings]) => {
        if (!live) return;
        const failures = [scripts, pairings].filter((r) => r.status === 'rejected');
        away.current = failures.some((r) => isAway(r.reason));
        setStatus((prev) => ({
          pending:
            scripts.status === 'fulfilled'
              ? scripts.value.scripts.filter((s) => s.status === 'pending').length
              : prev.pending,
          pairings: pairings.status === 'fulfilled' ? pairings.value.length : prev.pairings,
          unreachable: away.current,
        }));
        schedule();
      });
    };
    const onBack = () => {
      if (document.visibilityState === 'visible') poll.current();
    };
    window.addEventListener('focus', onBack);
    window.addEventListener('online', onBack);
    document.addEventListener('visibilitychange', onBack);
    return () => {
      live = false;
      clearTimeout(timer.current);
      window.removeEventListener('focus', onBack);
      window.removeEventListener('online', onBack);
      document.removeEventListener('visibilitychange', onBack);
    };
  }, []);

  useEffect(() => {
    poll.current();
  }, [key]);

  return status;
}

/** Said while Steward does not answer; it goes by itself once a poll gets through. */
export function UnreachableBanner({ show }: { show: boolean }) {
  return (
    <div role="status" aria-live="polite">
      {show && (
        <Alert color="orange" title="Steward is not answering" mb="md">
          Trying again every few seconds. What you change now may not be saved until it is back.
        </Alert>
      )}
    </div>
  );
}
