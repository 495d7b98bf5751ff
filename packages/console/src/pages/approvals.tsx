/// <reference lib="dom" />
import type { ApprovalView } from '@guardagent/client';
import { useState } from 'preact/hooks';
import { explain, getJson, postJson, query } from '../api';
import { Problem, json, short, when } from '../format';
import { href } from '../router';
import { usePoll } from '../use-poll';

type Approval = ApprovalView;

const APPROVER_ITEM = 'guardagent.console.approver';

function expiresIn(seconds: number): string {
  if (seconds <= 0) return 'expired';
  if (seconds < 120) return `in ${seconds} s`;
  if (seconds < 7200) return `in ${Math.floor(seconds / 60)} min`;
  return `in ${Math.floor(seconds / 3600)} h`;
}

/**
 * Held calls waiting for a person (GET /v1/approvals?status=pending), re-read every second while
 * the page is visible; each with why it was held and until when, and approve / reject under the
 * approver's name with a reason. Deciding takes the operate scope: the gateway refuses others.
 */
export function ApprovalsPage() {
  const [approver, setApprover] = useState(sessionStorage.getItem(APPROVER_ITEM) ?? '');
  const [reasons, setReasons] = useState<Record<string, string>>({});
  const [notice, setNotice] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const inbox = usePoll(() => getJson<{ approvals: Approval[] }>(`/v1/approvals${query({ status: 'pending', limit: 100 })}`), []);

  const decide = async (approval: Approval, action: 'approve' | 'reject') => {
    const name = approver.trim();
    if (!name) {
      setNotice({ ok: false, text: 'Enter your name as the approver first.' });
      document.getElementById('approver')?.focus();
      return;
    }
    sessionStorage.setItem(APPROVER_ITEM, name);
    setBusy(approval.id);
    try {
      const reason = reasons[approval.id]?.trim();
      const decided = await postJson<{ result: string }>(`/v1/approvals/${encodeURIComponent(approval.id)}/${action}`, { approver: name, ...(reason ? { reason } : {}) });
      setNotice({ ok: true, text: `${approval.tool} for ${approval.subject}: ${decided.result.replace('-', ' ')} by ${name}.` });
      inbox.refresh();
    } catch (error) {
      setNotice({ ok: false, text: `Could not ${action} ${approval.tool} for ${approval.subject}. ${explain(error)}` });
    } finally {
      setBusy(null);
    }
  };

  const approvals = inbox.data?.approvals ?? [];
  return (
    <section aria-labelledby="approvals-title">
      <h1 id="approvals-title">Approvals inbox</h1>
      <p class="hint">Held tool calls waiting for a person, updated every second. An approved call runs once, when the agent retries it with its token.</p>
      <div class="field">
        <label for="approver">Approver name</label>
        <input id="approver" name="approver" autoComplete="name" value={approver} onInput={(e) => setApprover((e.target as HTMLInputElement).value)} />
      </div>
      {notice && (
        <p role={notice.ok ? 'status' : 'alert'} class={notice.ok ? 'notice' : 'error'}>
          {notice.text}
        </p>
      )}
      {inbox.error !== undefined && <Problem error={inbox.error} what="read the held calls" />}
      {inbox.data && approvals.length === 0 && <p class="empty">No held calls are waiting.</p>}
      {approvals.length > 0 && (
        <table class="approvals">
          <caption>
            {approvals.length} held call{approvals.length === 1 ? '' : 's'} waiting
          </caption>
          <thead>
            <tr>
              <th scope="col">Tool</th>
              <th scope="col">Subject</th>
              <th scope="col">Policy</th>
              <th scope="col">Why held</th>
              <th scope="col">Arguments</th>
              <th scope="col">Expires</th>
              <th scope="col">Decide</th>
            </tr>
          </thead>
          <tbody>
            {approvals.map((approval) => (
              <tr key={approval.id} data-approval={approval.id}>
                <td class="tool">{approval.tool}</td>
                <td class="subject">{approval.subject}</td>
                <td>
                  <a href={href('policies', approval.policy)}>{approval.policy}</a>
                </td>
                <td class="why">
                  <ul>
                    {approval.reasons.map((reason) => (
                      <li key={reason}>{reason}</li>
                    ))}
                  </ul>
                  <span class="rules">{approval.rules.join(', ')}</span>
                  {approval.decisionId && (
                    <span class="rules">
                      {' '}
                      decision <a href={href('decisions', approval.decisionId)}>{short(approval.decisionId, 16)}</a>
                    </span>
                  )}
                </td>
                <td>
                  <pre class="args">{json(approval.args)}</pre>
                </td>
                <td>
                  <time dateTime={approval.expiresAt} title={when(approval.expiresAt)}>
                    {expiresIn(approval.expiresInSeconds)}
                  </time>
                </td>
                <td class="decide">
                  <label for={`reason-${approval.id}`}>Reason</label>
                  <input
                    id={`reason-${approval.id}`}
                    value={reasons[approval.id] ?? ''}
                    onInput={(e) => setReasons({ ...reasons, [approval.id]: (e.target as HTMLInputElement).value })}
                  />
                  <div class="buttons">
                    <button type="button" class="approve" disabled={busy === approval.id} aria-label={`Approve ${approval.tool} for ${approval.subject}`} onClick={() => decide(approval, 'approve')}>
                      Approve
                    </button>
                    <button type="button" class="reject" disabled={busy === approval.id} aria-label={`Reject ${approval.tool} for ${approval.subject}`} onClick={() => decide(approval, 'reject')}>
                      Reject
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
