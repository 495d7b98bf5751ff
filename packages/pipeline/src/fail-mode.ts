/**
 * The failures that mean the GuardAgent layer itself could not decide: no LLM, an unusable LLM
 * reply, no verified program, guard code that failed or killed its sandbox. Only these follow a
 * policy's `failMode: open`. Everything else (the rails, a store that is down, a job the
 * infrastructure could not run) denies under any failMode: opening on those would let an
 * outage, or an attacker who causes one, switch off allow-lists, rate limits and approvals.
 * `SANDBOX_QUARANTINED` is not here on purpose: a guard that keeps killing workers would
 * otherwise, under `failMode: open`, turn its own crashes into allows for the whole window.
 */
export const GUARD_LAYER_UNDECIDED_CODES: ReadonlySet<string> = new Set([
  'LLM_NOT_CONFIGURED',
  'LLM_REQUEST_FAILED',
  'LLM_REPLY_UNUSABLE',
  'NO_COMPILED_PROGRAM',
  'VERIFICATION_FAILED',
  'GUARD_CODE_FAILED',
  'SANDBOX_CRASHED',
  'SANDBOX_HUNG',
]);

/** The fail mode that applies to a failure with this code under a policy's `failMode`. */
export function failModeFor(code: string, policyFailMode: 'open' | 'closed'): 'open' | 'closed' {
  return policyFailMode === 'open' && GUARD_LAYER_UNDECIDED_CODES.has(code) ? 'open' : 'closed';
}
