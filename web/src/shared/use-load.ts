import { useCallback, useEffect, useState } from 'react';
import { describeError } from './api';

/** A load in progress, done, or failed, and a way to run it again. */
export interface Loaded<T> {
  data: T | undefined;
  error: { message: string; details: string[]; status?: number } | null;
  /** True while a run is on its way, including the moment `key` changed and it has not begun. */
  loading: boolean;
  reload: () => void;
}

/** What the latest finished run answered, and which run (key and reload count) it was. */
interface Settled<T> {
  key: string | null;
  run: number;
  data: T | undefined;
  error: Loaded<T>['error'];
}

/**
 * Runs `load` when the component mounts and whenever `key` changes, keeping only the answer of
 * the latest run (an earlier, slower answer never overwrites a later one). The previous data stay
 * shown while the next run is on its way.
 */
export function useLoad<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [state, setState] = useState<Settled<T>>({
    key: null,
    run: 0,
    data: undefined,
    error: null,
  });
  const [runs, setRuns] = useState(0);
  useEffect(() => {
    let current = true;
    load().then(
      (data) => current && setState({ key, run: runs, data, error: null }),
      (error: unknown) =>
        current &&
        setState({
          key,
          run: runs,
          data: undefined,
          error: { ...describeError(error), status: (error as { status?: number }).status },
        }),
    );
    return () => {
      current = false;
    };
    // `load` is a new closure each render; `key` says when what it loads changes.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, runs]);
  const reload = useCallback(() => setRuns((n) => n + 1), []);
  return {
    data: state.data,
    error: state.error,
    loading: state.key !== key || state.run !== runs,
    reload,
  };
}
