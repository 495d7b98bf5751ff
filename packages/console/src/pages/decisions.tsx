/// <reference lib="dom" />
import { useState } from 'preact/hooks';
import { getLines, query } from '../api';
import { Badge, Problem, json, short, when } from '../format';
import { href } from '../router';
import { usePoll } from '../use-poll';

interface Entry {
  id: string;
  at: string;
  policy: { id: string; version: string; digest: string; programDigest?: string };
  job: { input: unknown; output: unknown; context: Record<string, unknown>; subject?: { id: string; roles?: string[] }; action?: { kind: string; tool?: string; args?: unknown } } | null;
  jobOmitted?: string;
  decision: string;
  status: string;
  layer: string;
  mode: string;
  reasons: string[];
  rules: string[];
  error?: { code: string; message: string };
  shadow?: unknown;
  timings: Record<string, number>;
  traceId?: string;
}

interface Filters {
  decision: string;
  status: string;
  policy: string;
  rule: string;
  subject: string;
  tool: string;
  since: string;
}

const NO_FILTERS: Filters = { decision: '', status: '', policy: '', rule: '', subject: '', tool: '', since: '1h' };
/** Entries the explorer keeps (newest). */
const KEEP = 500;
/** Entries seen, by id, for the detail page. */
const seen = new Map<string, Entry>();

/** A job's input or output as text: a string as it is, anything else as JSON; nothing said so. */
const textOf = (value: unknown): string => (value === '' || value === undefined ? '(empty)' : typeof value === 'string' ? value : json(value));

const toolOf = (entry: Entry) => (entry.job?.action?.kind === 'tool_call' ? (entry.job.action.tool ?? '') : '');

/**
 * The decision log (GET /v1/decision-log) with the API's filters. Live: the first read takes the
 * chosen window, then every second only what was recorded since the newest entry shown (a few
 * seconds back, for clocks; duplicates dropped by id).
 */
export function DecisionsPage() {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [entries, setEntries] = useState<Entry[]>([]);
  const state = usePoll(
    async () => {
      const newest = entries[0];
      const since = newest ? new Date(Date.parse(newest.at) - 5000).toISOString() : filters.since === 'all' ? undefined : filters.since;
      const { since: _window, ...rest } = filters;
      const got = await getLines<Entry>(`/v1/decision-log${query({ ...rest, since, limit: KEEP })}`);
      const known = new Set(entries.map((e) => e.id));
      const fresh = got.filter((e) => !known.has(e.id)).reverse();
      for (const e of got) seen.set(e.id, e);
      if (fresh.length > 0) setEntries((old) => [...fresh, ...old].slice(0, KEEP));
      return got.length;
    },
    [filters, entries],
  );
  const apply = (event: Event) => {
    event.preventDefault();
    setEntries([]);
    setFilters({ ...draft });
  };
  const field = (name: keyof Filters, label: string, hint?: string) => (
    <div class="field">
      <label for={`filter-${name}`}>{label}</label>
      <input id={`filter-${name}`} name={name} placeholder={hint} value={draft[name]} onInput={(e) => setDraft({ ...draft, [name]: (e.target as HTMLInputElement).value })} />
    </div>
  );
  return (
    <section aria-labelledby="decisions-title">
      <h1 id="decisions-title">Decision explorer</h1>
      <p class="hint">Recorded decisions (policies with decisionLog: true), newest first; new ones appear within a second.</p>
      <form class="filters" onSubmit={apply} aria-label="Filter decisions">
        <div class="field">
          <label for="filter-decision">Decision</label>
          <select id="filter-decision" value={draft.decision} onChange={(e) => setDraft({ ...draft, decision: (e.target as HTMLSelectElement).value })}>
            <option value="">any</option>
            <option value="allow">allow</option>
            <option value="deny">deny</option>
            <option value="pending">pending</option>
          </select>
        </div>
        <div class="field">
          <label for="filter-status">Status</label>
          <select id="filter-status" value={draft.status} onChange={(e) => setDraft({ ...draft, status: (e.target as HTMLSelectElement).value })}>
            <option value="">any</option>
            <option value="ok">ok</option>
            <option value="guard_error">guard error</option>
          </select>
        </div>
        {field('policy', 'Policy')}
        {field('rule', 'Rule', 'tools.issue_refund.approval.over-50')}
        {field('subject', 'Subject')}
        {field('tool', 'Tool')}
        <div class="field">
          <label for="filter-since">Time</label>
          <select id="filter-since" value={draft.since} onChange={(e) => setDraft({ ...draft, since: (e.target as HTMLSelectElement).value })}>
            <option value="15m">last 15 minutes</option>
            <option value="1h">last hour</option>
            <option value="24h">last day</option>
            <option value="7d">last week</option>
            <option value="all">whole log</option>
          </select>
        </div>
        <button type="submit">Apply filters</button>
      </form>
      {state.error !== undefined && <Problem error={state.error} what="read the decision log" />}
      {!state.loading && state.error === undefined && entries.length === 0 && <p class="empty">No recorded decisions match.</p>}
      {entries.length > 0 && (
        <table class="decisions">
          <caption>{entries.length === KEEP ? `The newest ${KEEP} decisions` : `${entries.length} decisions`}</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Decision</th>
              <th scope="col">Policy</th>
              <th scope="col">Tool</th>
              <th scope="col">Subject</th>
              <th scope="col">Rules</th>
              <th scope="col">Reasons</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.id} data-decision={entry.id}>
                <td>
                  <time dateTime={entry.at}>{when(entry.at)}</time>
                </td>
                <td>
                  <Badge kind={entry.status === 'ok' ? entry.decision : 'error'}>{entry.status === 'ok' ? entry.decision : `${entry.decision} (guard error)`}</Badge>
                </td>
                <td>{entry.policy.id}</td>
                <td>{toolOf(entry)}</td>
                <td>{entry.job?.subject?.id ?? ''}</td>
                <td class="rules">{entry.rules.join(', ')}</td>
                <td class="reasons">{entry.reasons.join('; ')}</td>
                <td>
                  <a href={href('decisions', entry.id)} aria-label={`Details of decision ${entry.id}`}>
                    Details
                  </a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** One decision: the job as the guard saw it (already redacted in the log), what decided and why. */
export function DecisionDetailPage({ id }: { id: string }) {
  const state = usePoll(
    async () => {
      const known = seen.get(id);
      if (known) return known;
      const found = (await getLines<Entry>('/v1/decision-log')).find((e) => e.id === id) ?? null;
      if (found) seen.set(id, found);
      return found;
    },
    [id],
    60_000,
  );
  const entry = state.data;
  return (
    <section aria-labelledby="decision-title">
      <p>
        <a href={href('decisions')}>← All decisions</a>
      </p>
      <h1 id="decision-title">Decision {id}</h1>
      {state.error !== undefined && <Problem error={state.error} what="read the decision" />}
      {!state.loading && state.error === undefined && !entry && <p class="empty">This decision is not in the log (not recorded, trimmed, or another tenant's).</p>}
      {entry && (
        <div class="detail">
          <dl>
            <dt>Decision</dt>
            <dd>
              <Badge kind={entry.status === 'ok' ? entry.decision : 'error'}>{entry.decision}</Badge> ({entry.status}, by the {entry.layer} layer{entry.mode ? `, ${entry.mode} mode` : ''})
            </dd>
            <dt>At</dt>
            <dd>
              <time dateTime={entry.at}>{when(entry.at)}</time>
            </dd>
            <dt>Rules that fired</dt>
            <dd class="rules">{entry.rules.length > 0 ? entry.rules.join(', ') : 'none'}</dd>
            <dt>Why</dt>
            <dd>
              <ul class="reasons">
                {entry.reasons.map((reason, i) => (
                  <li key={i}>{reason}</li>
                ))}
              </ul>
            </dd>
            {entry.error && (
              <>
                <dt>Guard error</dt>
                <dd>
                  {entry.error.code}: {entry.error.message}
                </dd>
              </>
            )}
            <dt>Policy</dt>
            <dd>
              <a href={href('policies', entry.policy.id)}>{entry.policy.id}</a> version {entry.policy.version} (digest <code>{short(entry.policy.digest)}</code>)
            </dd>
            <dt>Program digest</dt>
            <dd>
              <code>{entry.policy.programDigest ?? '— (no compiled program decided)'}</code>
            </dd>
            <dt>Trace id</dt>
            <dd>
              <code>{entry.traceId ?? '—'}</code>
            </dd>
          </dl>
          <h2>Timings</h2>
          <table class="timings">
            <thead>
              <tr>
                <th scope="col">Stage</th>
                <th scope="col">ms</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(entry.timings).map(([stage, ms]) => (
                <tr key={stage}>
                  <th scope="row">{stage}</th>
                  <td>{Math.round(ms * 10) / 10}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h2>The job as the guard saw it</h2>
          {entry.job === null ? (
            <p class="empty">Not recorded: {entry.jobOmitted ?? 'omitted'}.</p>
          ) : (
            <dl class="job">
              <dt>Subject</dt>
              <dd>
                <pre>{json(entry.job.subject ?? null)}</pre>
              </dd>
              <dt>Action</dt>
              <dd>
                <pre>{json(entry.job.action ?? null)}</pre>
              </dd>
              <dt>Input</dt>
              <dd>
                <pre class="job-input">{textOf(entry.job.input)}</pre>
              </dd>
              <dt>Output</dt>
              <dd>
                <pre class="job-output">{textOf(entry.job.output)}</pre>
              </dd>
              <dt>Context</dt>
              <dd>
                <pre>{json(entry.job.context)}</pre>
              </dd>
            </dl>
          )}
          {entry.shadow !== undefined && (
            <>
              <h2>Shadow version</h2>
              <pre>{json(entry.shadow)}</pre>
            </>
          )}
        </div>
      )}
    </section>
  );
}
