/// <reference lib="dom" />
import { diffLines } from 'diff';
import { useEffect, useState } from 'preact/hooks';
import { stringify } from 'yaml';
import type { PolicyVersionInfo } from '@guardagent/client';
import { getJson } from '../api';
import { Badge, Problem, short, when } from '../format';
import { href } from '../router';
import { usePoll } from '../use-poll';

interface PolicySummary {
  id: string;
  version: string;
  digest: string;
  description?: string;
}


interface VersionView {
  policy: Record<string, unknown>;
  digest: string;
  programDigest: string;
  program?: { code: string; source: 'supplied' | 'compiled'; promotedAt: string; passedCount: number; total: number } | null;
}

const yamlOf = (policy: Record<string, unknown>): string => stringify(policy, { lineWidth: 0, blockQuote: 'literal' });

const path = (id: string, ...rest: string[]) => `/v1/policies/${[id, ...rest].map(encodeURIComponent).join('/')}`;

/** The tenant's policies (GET /v1/policies). */
export function PoliciesPage() {
  const list = usePoll(() => getJson<{ policies: PolicySummary[] }>('/v1/policies'), [], 5000);
  const policies = list.data?.policies ?? [];
  return (
    <section aria-labelledby="policies-title">
      <h1 id="policies-title">Policies</h1>
      {list.error !== undefined && <Problem error={list.error} what="list the policies" />}
      {list.data && policies.length === 0 && <p class="empty">No policies yet.</p>}
      {policies.length > 0 && (
        <table class="policies">
          <caption>Current version of each policy</caption>
          <thead>
            <tr>
              <th scope="col">Policy</th>
              <th scope="col">Version</th>
              <th scope="col">Digest</th>
              <th scope="col">Description</th>
            </tr>
          </thead>
          <tbody>
            {policies.map((policy) => (
              <tr key={policy.id}>
                <td>
                  <a href={href('policies', policy.id)}>{policy.id}</a>
                </td>
                <td>{policy.version}</td>
                <td>
                  <code>{short(policy.digest)}</code>
                </td>
                <td>{policy.description ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** Reads versions by digest once each (a digest names one immutable version). */
function useVersions(id: string, digests: string[]): Record<string, VersionView | Error> {
  const [views, setViews] = useState<Record<string, VersionView | Error>>({});
  const wanted = digests.filter((d) => d && !(d in views)).join(',');
  useEffect(() => {
    if (!wanted) return;
    let stopped = false;
    for (const digest of wanted.split(',')) {
      getJson<VersionView>(path(id, 'versions', digest)).then(
        (view) => !stopped && setViews((old) => ({ ...old, [digest]: view })),
        (error: Error) => !stopped && setViews((old) => ({ ...old, [digest]: error })),
      );
    }
    return () => {
      stopped = true;
    };
  }, [id, wanted]);
  return views;
}

function Diff({ before, after, what }: { before: string; after: string; what: string }) {
  const parts = diffLines(before, after);
  const changed = parts.some((part) => part.added || part.removed);
  if (!changed) return <p class="empty">The two {what} are the same.</p>;
  return (
    <pre class="diff">
      {parts.flatMap((part, i) => {
        const sign = part.added ? '+' : part.removed ? '-' : ' ';
        const kind = part.added ? 'added' : part.removed ? 'removed' : 'same';
        const lines = part.value.endsWith('\n') ? part.value.slice(0, -1).split('\n') : part.value.split('\n');
        return lines.map((line, j) => (
          <span key={`${i}-${j}`} class={`line ${kind}`}>
            {sign} {line}
            {'\n'}
          </span>
        ));
      })}
    </pre>
  );
}

/** One policy: its versions, a version's YAML and compiled program, and a line diff of two versions' programs. */
export function PolicyPage({ id }: { id: string }) {
  const versions = usePoll(() => getJson<{ versions: PolicyVersionInfo[] }>(path(id, 'versions')), [id], 5000);
  const list = versions.data?.versions ?? [];
  const [shown, setShown] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [what, setWhat] = useState<'program' | 'yaml'>('program');
  const newest = list[0]?.digest ?? '';
  const older = list[1]?.digest ?? newest;
  const shownDigest = shown || list.find((v) => v.current)?.digest || newest;
  const fromDigest = from || older;
  const toDigest = to || newest;
  const views = useVersions(id, [shownDigest, fromDigest, toDigest]);
  const view = views[shownDigest];
  const label = (v: PolicyVersionInfo) => `version ${v.version} (${short(v.digest, 8)})${v.current ? ', current' : ''}${v.shadow ? ', shadow' : ''}`;
  const select = (name: string, text: string, value: string, set: (v: string) => void) => (
    <div class="field">
      <label for={name}>{text}</label>
      <select id={name} value={value} onChange={(e) => set((e.target as HTMLSelectElement).value)}>
        {list.map((v) => (
          <option key={v.digest} value={v.digest}>
            {label(v)}
          </option>
        ))}
      </select>
    </div>
  );
  const a = views[fromDigest];
  const b = views[toDigest];
  return (
    <section aria-labelledby="policy-title">
      <p>
        <a href={href('policies')}>← All policies</a>
      </p>
      <h1 id="policy-title">Policy {id}</h1>
      {versions.error !== undefined && <Problem error={versions.error} what="read this policy's versions" />}
      {list.length > 0 && (
        <>
          <table class="versions">
            <caption>Versions, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Digest</th>
                <th scope="col">Put at</th>
                <th scope="col">In force</th>
                <th scope="col">Show</th>
              </tr>
            </thead>
            <tbody>
              {list.map((v) => (
                <tr key={v.digest} aria-current={v.digest === shownDigest ? 'true' : undefined}>
                  <td>{v.version}</td>
                  <td>
                    <code>{short(v.digest)}</code>
                  </td>
                  <td>{when(v.putAt)}</td>
                  <td>
                    {v.current && <Badge kind="allow">current</Badge>} {v.shadow && <Badge kind="pending">shadow</Badge>}
                  </td>
                  <td>
                    <button type="button" onClick={() => setShown(v.digest)} aria-label={`Show version ${v.version} (${short(v.digest, 8)})`} disabled={v.digest === shownDigest}>
                      Show
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>

          <h2>Compare two versions</h2>
          <div class="filters">
            {select('diff-from', 'From', fromDigest, setFrom)}
            {select('diff-to', 'To', toDigest, setTo)}
            <div class="field">
              <label for="diff-what">Compare</label>
              <select id="diff-what" value={what} onChange={(e) => setWhat((e.target as HTMLSelectElement).value as 'program' | 'yaml')}>
                <option value="program">compiled programs</option>
                <option value="yaml">policies (YAML)</option>
              </select>
            </div>
          </div>
          {a instanceof Error && <Problem error={a} what="read the first version" />}
          {b instanceof Error && <Problem error={b} what="read the second version" />}
          {a && b && !(a instanceof Error) && !(b instanceof Error) && what === 'yaml' && <Diff before={yamlOf(a.policy)} after={yamlOf(b.policy)} what="policies" />}
          {a && b && !(a instanceof Error) && !(b instanceof Error) && what === 'program' && (a.program && b.program ? <Diff before={a.program.code} after={b.program.code} what="programs" /> : <p class="empty">Only compiled versions with a verified program can be compared: {a.program ? '' : 'the first has none. '}{b.program ? '' : 'the second has none.'} Compare the policies (YAML) instead.</p>)}

          <h2>Version {list.find((v) => v.digest === shownDigest)?.version ?? ''}</h2>
          {view instanceof Error && <Problem error={view} what="read this version" />}
          {view && !(view instanceof Error) && (
            <div class="version">
              <p>
                Digest <code>{view.digest}</code>, program digest <code>{view.programDigest}</code>
              </p>
              <h3>Policy (YAML)</h3>
              <pre class="yaml">{yamlOf(view.policy)}</pre>
              <h3>Compiled program</h3>
              {view.program ? (
                <>
                  <p class="hint">
                    {view.program.source === 'supplied' ? 'Supplied with the policy' : 'Written by the LLM'}; passed {view.program.passedCount} of {view.program.total} labelled examples; promoted {when(view.program.promotedAt)}.
                  </p>
                  <pre class="program">{view.program.code}</pre>
                </>
              ) : (
                <p class="empty">No verified program for this version (rails only, not compiled yet, or per-request code).</p>
              )}
            </div>
          )}
        </>
      )}
    </section>
  );
}
