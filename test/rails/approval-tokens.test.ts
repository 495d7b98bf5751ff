import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { ResultStore, keys, newPipelineState } from '@guardagent/queue';
import { RedisApprovalStore, approvalTokenHash } from '@guardagent/rails';
import { createRailsRuntime, finalizeDecision, handleCheck, type FinalizeDeps, type PipelineDeps } from '@guardagent/pipeline';
import { parsePolicyText } from '@guardagent/schemas';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { REPO_ROOT } from '../helpers/pipeline-stack';

const redis = new Redis(testRedisUrl());
afterAll(() => redis.disconnect());

const refundDesk = parsePolicyText(readFileSync(join(REPO_ROOT, 'examples/policies/refund-desk.yaml'), 'utf8'));
const registered = { policy: refundDesk, digest: 'digest-1', programDigest: 'program-1' };

/** The executor's path for one run of a held refund: rails, then the stored decision (fenced when given a lock). */
function executorRun(prefix: string) {
  const results = new ResultStore(redis, prefix, 600);
  const deps = {
    policies: { getByDigest: async () => registered },
    rails: createRailsRuntime(redis, prefix),
    now: Date.now,
  } as unknown as PipelineDeps;
  const finalizeDeps = { results, now: Date.now } as unknown as FinalizeDeps;
  const state = newPipelineState({
    jobId: 'refund-1',
    tenant: 'acme',
    purpose: 'check',
    policy: { id: refundDesk.id, version: '1', digest: registered.digest, programDigest: registered.programDigest },
    job: {
      subject: { id: 'u-1', roles: ['support_agent'], attributes: {} },
      action: { kind: 'tool_call', tool: 'issue_refund', args: { user_id: 'u-1', amount: 80, reason: 'broken item' } },
    } as never,
    replyTo: null,
    trace: {},
    submittedAt: 1_700_000_000_000,
  });
  return {
    results,
    async run(fence: { lockKey: string; token: string } | null = null) {
      const before = await approvalKeys(prefix);
      const outcome = await handleCheck(state, deps);
      if (outcome.kind !== 'decision') throw new Error(`expected a decision, got ${outcome.kind}`);
      expect(outcome.draft.verdict).toBe('pending');
      // Issuing the token wrote nothing yet: only storing the decision does.
      expect(await approvalKeys(prefix)).toEqual(before);
      return { token: outcome.draft.approval!.token, saved: finalizeDecision(finalizeDeps, outcome.state, outcome.draft, fence) };
    },
  };
}

const approvalKeys = (prefix: string) => redis.keys(`${prefix}:approval:*`);

describe('approval tokens of re-run jobs', () => {
  it('a held call run twice records one token: the one its stored decision hands out', async () => {
    const prefix = uniquePrefix('approval-rerun');
    const executor = executorRun(prefix);
    const first = await executor.run();
    await first.saved;
    // The re-run (a takeover after the first run stored its answer) mints a token of its own...
    const rerun = executorRun(prefix);
    const second = await rerun.run();
    await second.saved;
    expect(second.token).not.toBe(first.token);

    // ...which is never recorded: one token in Redis, the stored decision's.
    expect(await approvalKeys(prefix)).toHaveLength(1);
    const stored = await executor.results.getDecision('acme', 'refund-1');
    expect(stored?.approval?.token).toBe(first.token);
    const approvals = new RedisApprovalStore({ redis, prefix });
    expect(await approvals.get(first.token)).toMatchObject({ status: 'pending', tool: 'issue_refund', subjectId: 'u-1', tenant: 'acme' });
    expect(await approvals.get(second.token)).toBeNull();
    expect(await approvals.approve(second.token, 'supervisor-7')).toBe('unknown');
    // The stored decision's token alone is listed for the tenant's approvers and queued for its webhook.
    const id = approvalTokenHash(first.token);
    expect(stored?.approval?.id).toBe(id);
    expect(await redis.zrange(keys(prefix).approvalIndex('acme'), '0', '-1')).toEqual([id]);
    expect(await redis.zrange(keys(prefix).approvalWebhooks(), '0', '-1')).toEqual([id]);
    expect((await approvals.list('acme')).approvals).toMatchObject([{ id, tool: 'issue_refund', decisionId: 'refund-1', reasons: [expect.stringContaining('over')] }]);
    expect(await approvals.approve(first.token, 'supervisor-7')).toBe('approved');
  });

  it('a worker that lost its job lock records no token; the new owner records its own', async () => {
    const prefix = uniquePrefix('approval-fence');
    const lockKey = keys(prefix).jobLock('executor', 'refund-1');
    await redis.set(lockKey, 'token-of-the-new-owner', 'PX', 10_000);

    const stale = await executorRun(prefix).run({ lockKey, token: 'token-of-a-thawed-worker' });
    await expect(stale.saved).rejects.toMatchObject({ code: 'LOCK_LOST' });
    expect(await approvalKeys(prefix)).toHaveLength(0);

    const owner = await executorRun(prefix).run({ lockKey, token: 'token-of-the-new-owner' });
    await owner.saved;
    expect(await approvalKeys(prefix)).toHaveLength(1);
    expect(await new RedisApprovalStore({ redis, prefix }).get(owner.token)).toMatchObject({ status: 'pending' });
    const ttl = await redis.pttl((await approvalKeys(prefix))[0]!);
    // The token's record expires after its TTL plus the retention that keeps a used token refused.
    expect(ttl).toBeGreaterThan(refundDesk.rails!.approval.ttlSeconds * 1000);
  });
});
