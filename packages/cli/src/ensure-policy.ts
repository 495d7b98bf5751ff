import type { QueueTransport } from '@guardagent/client/queue';
import type { CompileResult, Policy } from '@guardagent/schemas';

/** What of the client `ensurePolicyReady` needs. */
export type PolicyClient = Pick<QueueTransport, 'putPolicy' | 'promotedProgram' | 'compile'>;

export interface PolicyReady {
  id: string;
  version: string;
  digest: string;
  /**
   * none: the policy supplies no program (or runs per request), nothing to verify;
   * already-promoted: verified earlier; promoted: verified now; failed: did not pass verification.
   */
  program: 'none' | 'already-promoted' | 'promoted' | 'failed';
  /** The verification just run, when one was. */
  compile: CompileResult | null;
}

/**
 * Register a policy and, when it supplies a program that is not verified yet, verify it against
 * the policy's labelled examples (`compile`), so checks run the program instead of needing an LLM.
 */
export async function ensurePolicyReady(client: PolicyClient, policy: Policy, options: { timeoutMs?: number } = {}): Promise<PolicyReady> {
  const registered = await client.putPolicy(policy);
  const base = { id: registered.id, version: registered.version, digest: registered.digest };
  if (!policy.program || policy.mode === 'per-request') return { ...base, program: 'none', compile: null };
  if (await client.promotedProgram(policy.id)) return { ...base, program: 'already-promoted', compile: null };
  const compiled = await client.compile(policy.id, options.timeoutMs ? { timeoutMs: options.timeoutMs } : {});
  return { ...base, program: compiled.status === 'promoted' ? 'promoted' : 'failed', compile: compiled };
}

/** The warning a command prints when the supplied program did not pass verification (null when it did). */
export function verificationWarning(ready: PolicyReady): string | null {
  if (ready.program !== 'failed') return null;
  return `guardagent: the policy's program did not pass verification: ${JSON.stringify(ready.compile?.report?.failing ?? ready.compile?.error)}\n`;
}
