import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { loadConfig } from '@guardagent/config';
import { startRedisServer, type LocalRedis } from '@guardagent/local-redis';
import { createRailsRuntime, createRuntime, type Runtime } from '@guardagent/pipeline';
import { QueueTransport } from '@guardagent/client/queue';
import type { PolicyInput } from '@guardagent/schemas';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { silentLogger } from '@guardagent/telemetry';

// failMode: open is the operator saying "if the GuardAgent layer cannot decide, let the call
// through". It must never open the rails (allow-lists, rate limits, approvals) or cover for
// infrastructure that is down: those deny under any failMode.

const subject = { id: 'u-1', roles: ['clerk'] };
const pay = (amount: number) => ({ policy: 'payments', subject, action: { kind: 'tool_call' as const, tool: 'pay', args: { amount } } });
const payments: PolicyInput = {
  id: 'payments',
  failMode: 'open',
  rails: {
    roles: { clerk: { tools: ['pay'] } },
    tools: {
      pay: {
        rateLimit: { max: 5, windowSeconds: 60 },
        requireApproval: [{ id: 'big', when: 'args.amount > 100', message: 'payments over 100 need approval' }],
      },
    },
  },
};

let railsRedis: LocalRedis;
let railsConnection: Redis;
let runtime: Runtime;
let client: QueueTransport;

beforeAll(async () => {
  const redisUrl = testRedisUrl();
  const prefix = uniquePrefix('failmode');
  const config = loadConfig({}, { redisUrl, prefix });
  runtime = await createRuntime(config, { llm: null, logger: silentLogger });
  // The rails' shared state (rate-limit windows, approval tokens) on a Redis this test can stop.
  railsRedis = await startRedisServer();
  railsConnection = new Redis(railsRedis.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, retryStrategy: () => 200 });
  railsConnection.on('error', () => undefined);
  runtime.deps.rails = createRailsRuntime(railsConnection, prefix);
  runtime.startWorkers(['executor']);
  client = await QueueTransport.connect({ redisUrl, prefix, tenant: 'default' });
  await client.putPolicy(payments);
  await client.putPolicy({ id: 'open-guard', failMode: 'open', requests: 'Deny refunds over 100.', mode: 'per-request' });
  await client.putPolicy({ id: 'rails-only', rails: { roles: { clerk: { tools: ['pay'] } } } });
  await client.putPolicy({ id: 'rails-plain', rails: { roles: { clerk: { tools: ['pay'] } }, allowPlainJobs: true } });
}, 60_000);
afterAll(async () => {
  await client?.close();
  await runtime?.close();
  railsConnection?.disconnect();
  await railsRedis?.stop();
});

describe('failure semantics', () => {
  it('with the rails store up, the rails decide: a small payment is allowed, a big one held', async () => {
    expect(await client.check(pay(20))).toMatchObject({ decision: 'allow', status: 'ok', layer: 'rails' });
    expect(await client.check(pay(500))).toMatchObject({ decision: 'pending', status: 'ok', layer: 'rails' });
  });

  it('a policy that fails open still opens when the GuardAgent layer cannot decide (no LLM)', async () => {
    const decision = await client.check({ policy: 'open-guard', input: 'refund 500' });
    expect(decision).toMatchObject({ decision: 'allow', status: 'guard_error', error: { code: 'LLM_NOT_CONFIGURED' } });
  });

  it('a rails-only policy denies a job that declares no action, unless it allows plain jobs', async () => {
    const plain = await client.check({ policy: 'rails-only', subject, input: 'pay 20 to bob' });
    expect(plain).toMatchObject({ decision: 'deny', status: 'ok', layer: 'rails', rules: ['rails.action-required'] });
    expect(await client.check({ policy: 'rails-plain', subject, input: 'pay 20 to bob' })).toMatchObject({ decision: 'allow' });
    expect(await client.check({ ...pay(20), policy: 'rails-only' })).toMatchObject({ decision: 'allow' });
  });

  it('while the rails store is down, rate-limited calls and approved retries are denied although the policy fails open', async () => {
    await railsRedis.stop();
    const small = await client.check(pay(20), { timeoutMs: 20_000 });
    expect(small).toMatchObject({ decision: 'deny', status: 'guard_error' });
    expect(small.reasons.join(' ')).toContain('fail-closed');
    // An approved retry needs the store to check and use its token. (Issuing a token for a held
    // call does not: the token is recorded by the script that stores the pending decision.)
    const approvedRetry = await client.check({ ...pay(500), context: { approvalToken: `apv_${'A'.repeat(43)}` } }, { timeoutMs: 20_000 });
    expect(approvedRetry).toMatchObject({ decision: 'deny', status: 'guard_error' });
    expect(approvedRetry.reasons.join(' ')).toContain('fail-closed');
    // A call the allow-list refuses needs no store: still an ordinary rails deny.
    expect(await client.check({ ...pay(20), action: { kind: 'tool_call', tool: 'drop_table', args: {} } })).toMatchObject({ decision: 'deny', status: 'ok' });
  }, 60_000);
});
