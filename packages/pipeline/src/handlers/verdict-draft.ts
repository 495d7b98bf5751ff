import type { SandboxErrorKind } from '@guardagent/errors';
import type { DecisionDraft } from '../stage-outcome';

/** A verdict returned by guard code → a decision draft of the GuardAgent layer. */
export function verdictDraft(
  verdict: { deny: boolean; reasons: string[]; details: Record<string, unknown> },
  mode: 'compiled' | 'per-request',
): DecisionDraft {
  return {
    verdict: verdict.deny ? 'deny' : 'allow',
    status: 'ok',
    layer: 'guardagent',
    mode,
    reasons: verdict.reasons,
    details: verdict.details,
  };
}

/** Worker deaths that end a job at once: its input killed or hung a sandbox worker, and a retry would do it again. */
export function isPoisonRun(error: { kind: SandboxErrorKind }): boolean {
  return error.kind === 'crashed' || error.kind === 'hung';
}

export function sandboxFailure(error: { kind: SandboxErrorKind; message: string }, what: string): { code: string; message: string } {
  const code = error.kind === 'crashed' ? 'SANDBOX_CRASHED' : error.kind === 'hung' ? 'SANDBOX_HUNG' : 'GUARD_CODE_FAILED';
  return { code, message: `${what} failed (${error.kind}): ${error.message}` };
}
