/// <reference lib="dom" />
import { useRef } from 'preact/hooks';
import { ApiError, getJson, getText } from '../api';
import { Problem, json, when } from '../format';
import { usePoll } from '../use-poll';

interface Totals {
  at: number;
  total: number;
  deny: number;
  guardErrors: number;
}

/** Sums guardagent_decisions_total from Prometheus text: all, denied, and guard errors. */
function decisionTotals(text: string, at: number): Totals {
  const totals: Totals = { at, total: 0, deny: 0, guardErrors: 0 };
  for (const line of text.split('\n')) {
    if (!line.startsWith('guardagent_decisions_total{')) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (!Number.isFinite(value)) continue;
    const labels = line.slice(line.indexOf('{'), line.lastIndexOf('}') + 1);
    totals.total += value;
    if (labels.includes('decision="deny"')) totals.deny += value;
    if (labels.includes('status="guard_error"')) totals.guardErrors += value;
  }
  return totals;
}

interface KeyView {
  id: string;
  name?: string;
  scopes: string[];
  createdAt: string;
  rotatedAt?: string;
}

const optional = async <T,>(load: () => Promise<T>): Promise<T | ApiError> => {
  try {
    return await load();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
};

/**
 * Health at a glance: readiness (/readyz), checks per second, deny rate and guard errors (from
 * /metrics, which only the admin key or GUARDAGENT_METRICS_KEY reads: its labels name every
 * tenant), and the tenant's quotas and keys (keys: admin scope).
 */
export function OverviewPage() {
  const last = useRef<Totals | null>(null);
  const state = usePoll(async () => {
    const [ready, metrics, quotas, keys] = await Promise.all([
      fetch('/readyz', { cache: 'no-store', credentials: 'omit' }).then(async (r) => ({ ok: r.ok, body: (await r.json()) as Record<string, unknown> })),
      optional(() => getText('/metrics')),
      optional(() => getJson<{ quotas: Record<string, number>; overrides: Record<string, number>; inFlight: number; storedBytes: number }>('/v1/quotas')),
      optional(() => getJson<{ keys: KeyView[] }>('/v1/keys')),
    ]);
    let rates: { perSecond: number | null; totals: Totals } | null = null;
    if (typeof metrics === 'string') {
      const totals = decisionTotals(metrics, Date.now());
      const before = last.current;
      const perSecond = before && totals.at > before.at ? Math.max(0, (totals.total - before.total) / ((totals.at - before.at) / 1000)) : null;
      last.current = totals;
      rates = { perSecond, totals };
    }
    return { ready, metrics: typeof metrics === 'string' ? null : metrics, rates, quotas, keys };
  }, [], 2000);
  const data = state.data;
  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      {state.error !== undefined && <Problem error={state.error} what="read the gateway's state" />}
      {data && (
        <>
          <h2>Readiness</h2>
          <p class={`readiness ${data.ready.ok ? 'notice' : 'error'}`}>{data.ready.ok ? 'Ready' : 'Not ready'}</p>
          <pre>{json(data.ready.body)}</pre>

          <h2>Decisions</h2>
          {data.rates ? (
            <dl class="stats">
              <dt>Checks per second</dt>
              <dd>{data.rates.perSecond === null ? 'measuring…' : data.rates.perSecond.toFixed(1)}</dd>
              <dt>Decisions</dt>
              <dd>{data.rates.totals.total}</dd>
              <dt>Deny rate</dt>
              <dd>{data.rates.totals.total > 0 ? `${((100 * data.rates.totals.deny) / data.rates.totals.total).toFixed(1)} %` : '—'}</dd>
              <dt>Guard errors</dt>
              <dd>{data.rates.totals.guardErrors}</dd>
            </dl>
          ) : (
            <p class="hint">The metrics are read with the admin key or the metrics key (GUARDAGENT_METRICS_KEY) only: they name every tenant. {data.metrics ? `(${data.metrics.code})` : ''}</p>
          )}

          <h2>Quotas</h2>
          {data.quotas instanceof ApiError ? (
            <Problem error={data.quotas} what="read the quotas" />
          ) : (
            <table class="quotas">
              <caption>
                {data.quotas.inFlight} checks in flight, {data.quotas.storedBytes} bytes stored
              </caption>
              <thead>
                <tr>
                  <th scope="col">Quota</th>
                  <th scope="col">Limit</th>
                  <th scope="col">Overridden</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(data.quotas.quotas).map(([name, value]) => (
                  <tr key={name}>
                    <th scope="row">{name}</th>
                    <td>{value}</td>
                    <td>{!(data.quotas instanceof ApiError) && name in data.quotas.overrides ? 'yes' : ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}

          <h2>API keys</h2>
          {data.keys instanceof ApiError ? (
            <p class="hint">Listing keys takes an admin key ({data.keys.code}).</p>
          ) : (
            <table class="keys">
              <thead>
                <tr>
                  <th scope="col">Id</th>
                  <th scope="col">Name</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Created</th>
                  <th scope="col">Rotated</th>
                </tr>
              </thead>
              <tbody>
                {data.keys.keys.map((key) => (
                  <tr key={key.id}>
                    <td>
                      <code>{key.id}</code>
                    </td>
                    <td>{key.name ?? ''}</td>
                    <td>{key.scopes.join(', ')}</td>
                    <td>{when(key.createdAt)}</td>
                    <td>{when(key.rotatedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
