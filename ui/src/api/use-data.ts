import { useCallback, useEffect, useRef, useState } from 'react';

export interface DataState<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** Load again; the current data stays on screen meanwhile. */
  reload: () => Promise<void>;
  setData: (data: T) => void;
}

/** Loads `load()` on mount and whenever `deps` change; the last answer wins. */
export function useData<T>(load: () => Promise<T>, deps: readonly unknown[]): DataState<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const seq = useRef(0);
  const loader = useRef(load);
  loader.current = load;

  const reload = useCallback(async () => {
    const mine = ++seq.current;
    setLoading(true);
    try {
      const value = await loader.current();
      if (mine === seq.current) {
        setData(value);
        setError(null);
      }
    } catch (err) {
      if (mine === seq.current) setError(err);
    } finally {
      if (mine === seq.current) setLoading(false);
    }
  }, []);

  useEffect(() => {
    void reload();
  }, deps);

  return { data, error, loading, reload, setData };
}
