/// <reference lib="dom" />
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Polled<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
}

/**
 * Loads now, then again a second after each answer while the page is visible (a hidden tab asks
 * nothing; it loads again as it comes back). The console's way to stay live: plain fetch() calls
 * with the key in the Authorization header, never an EventSource (which would need it in the URL).
 */
export function usePoll<T>(load: () => Promise<T>, deps: readonly unknown[], intervalMs = 1000): Polled<T> & { refresh: () => void } {
  const [state, setState] = useState<Polled<T>>({ data: undefined, error: undefined, loading: true });
  const kick = useRef<() => void>(() => {});
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let running = false;
    const tick = async () => {
      if (stopped || running) return;
      clearTimeout(timer);
      if (document.visibilityState === 'visible') {
        running = true;
        try {
          const data = await load();
          if (!stopped) setState({ data, error: undefined, loading: false });
        } catch (error) {
          if (!stopped) setState({ data: undefined, error, loading: false });
        } finally {
          running = false;
        }
      }
      if (!stopped) timer = setTimeout(tick, intervalMs);
    };
    kick.current = () => void tick();
    const onVisible = () => {
      if (document.visibilityState === 'visible') void tick();
    };
    document.addEventListener('visibilitychange', onVisible);
    setState((s) => ({ ...s, loading: true }));
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, deps);
  const refresh = useCallback(() => kick.current(), []);
  return { ...state, refresh };
}
