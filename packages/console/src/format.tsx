/// <reference lib="dom" />
import type { ComponentChildren } from 'preact';
import { ApiError, explain } from './api';

export const short = (digest: string | undefined, n = 12): string => (digest ? digest.slice(0, n) : '—');

export function when(iso: string | undefined | null): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** JSON as indented text (rendered as text: never markup). */
export const json = (value: unknown): string => JSON.stringify(value, null, 2) ?? 'undefined';

/** A failed load, said plainly; a scope the key lacks says which. */
export function Problem({ error, what }: { error: unknown; what: string }) {
  const scope = error instanceof ApiError && error.code === 'SCOPE_REQUIRED';
  return (
    <div role="alert" class="error">
      <p>
        Cannot {what}. {explain(error)}
      </p>
      {scope && <p>This key lacks the scope for this page: log in with an operator (operate or admin) key.</p>}
    </div>
  );
}

export function Badge({ kind, children }: { kind: string; children: ComponentChildren }) {
  return <span class={`badge badge-${kind}`}>{children}</span>;
}
