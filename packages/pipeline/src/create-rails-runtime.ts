import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { DeferredApprovalStore, RedisApprovalStore, RedisRateLimiter, compileRails, evaluateRails, type CompiledRails, type RailsOffload } from '@guardagent/rails';
import type { RailsRuntime } from './rails-runtime';

/** Compiled rails kept per process (ajv validators and CEL programs; digests are the clients'). */
const COMPILED_RAILS_ENTRIES = 1000;

/**
 * Rails with their shared state in Redis: rate-limit windows and approval tokens are seen by
 * every executor process. A policy's rails are compiled (ajv, CEL) once per policy digest.
 * `redis` must be the Redis decisions are stored in: a held call's token is recorded by the
 * script that stores its pending decision (ResultStore.saveDecision), and read back from here.
 * With `offload`, a job whose filters read more than INLINE_MAX_CHARS is checked there, off this
 * process's event loop.
 */
export function createRailsRuntime(redis: Redis, prefix: string, offload?: RailsOffload): RailsRuntime {
  const compiled = new LRUCache<string, CompiledRails>({ max: COMPILED_RAILS_ENTRIES });
  const rateLimiter = new RedisRateLimiter({ redis, prefix });
  const approvals = new RedisApprovalStore({ redis, prefix });
  return {
    async evaluate(tenant, registered, job, callId, options = {}) {
      const replayId = options.replayId ?? null;
      const rails = registered.policy.rails;
      if (!rails) return { verdict: 'continue', reasons: [], rules: [] };
      let rules = compiled.get(registered.digest);
      if (!rules) {
        rules = compileRails(rails);
        compiled.set(registered.digest, rules);
      }
      // A token issued here is recorded with the pending decision, not now (see saveDecision).
      const issuing = new DeferredApprovalStore(approvals);
      const outcome = await evaluateRails(
        rules,
        { subject: job.subject, action: job.action, input: job.input, output: job.output, context: job.context },
        // A NUL cannot occur in a tenant id, so a replay's windows never share a key with live ones.
        {
          rateLimiter,
          approvals: issuing,
          tenant: replayId === null ? tenant : `${tenant}\u0000replay\u0000${replayId}`,
          policyId: registered.policy.id,
          callId,
          ...(options.decisionId ? { decisionId: options.decisionId } : {}),
          ...(offload ? { offload } : {}),
        },
      );
      const issued = replayId === null && outcome.approval;
      return {
        verdict: outcome.verdict,
        reasons: outcome.reasons,
        rules: outcome.rules,
        ...(outcome.redacted ? { redacted: definedOnly(outcome.redacted) } : {}),
        ...(issued ? { approval: outcome.approval } : {}),
        ...(issued && issuing.issued ? { approvalRecord: issuing.issued } : {}),
      };
    },
  };
}

/** The fields that are set (a stored decision carries no `undefined` keys). */
function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
