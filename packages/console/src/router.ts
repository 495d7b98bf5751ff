/// <reference lib="dom" />
import { useEffect, useState } from 'preact/hooks';

/** The page's route: the URL's hash, e.g. `#/decisions/chk_…` → ['decisions', 'chk_…'] (never a key). */
export function useRoute(): string[] {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const onChange = () => setHash(location.hash);
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return (hash.startsWith('#') ? hash.slice(1) : hash)
    .split('/')
    .filter((part) => part !== '')
    .map((part) => decodeURIComponent(part));
}

export const href = (...parts: string[]): string => `#/${parts.map((part) => encodeURIComponent(part)).join('/')}`;
