import { sandboxErrorCode, type SandboxErrorKind } from '@guardagent/errors';
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

/**
 * Runs that end a job at once: its input killed or hung a sandbox worker, and a retry would do it
 * again; or its guard is quarantined for doing so, and was not run.
 */
export function isPoisonRun(error: { kind: SandboxErrorKind }): boolean {
  return error.kind === 'crashed' || error.kind === 'hung' || error.kind === 'quarantined';
}

export function sandboxFailure(error: { kind: SandboxErrorKind; message: string }, what: string): { code: string; message: string } {
  const code = sandboxErrorCode(error.kind);
  if (error.kind === 'quarantined') return { code, message: `${what} was not run: ${error.message}` };
  return { code, message: `${what} failed (${error.kind}): ${error.message}` };
}
