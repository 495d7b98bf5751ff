import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@guardagent/config';
import { QueueTransport } from '@guardagent/client/queue';
import type { PolicyInput } from '@guardagent/schemas';
import { startTestStack, waitFor, type TestStack } from '../helpers/pipeline-stack';

// The crash budget end to end (issue 32): a compiled program that kills its sandbox worker on an
// input its tenant chooses is quarantined after the budget (here one death per version, in a 3 s
// window): its checks end SANDBOX_QUARANTINED at once, denied even under failMode open, never
// debugged; another tenant's checks are decided meanwhile; after the window it runs again.

const WINDOW_MS = 3000;
const program = "if (String(input).includes('boom')) { 'x'.repeat(2 ** 28).split(''); }\nreturn { deny: input === 'deny me', reasons: ['decided'] };";
const policy: PolicyInput = {
  id: 'crashy',
  requests: 'x',
  mode: 'compiled',
  failMode: 'open',
  program,
  examples: [
    { id: 'a', input: 'deny me', label: 1 },
    { id: 'b', input: 'hello', label: 0 },
  ],
};

let stack: TestStack;
let other: QueueTransport;

beforeAll(async () => {
  stack = await startTestStack({
    tenant: 'mallory',
    config: { sandbox: { ...loadConfig({}).sandbox, poolSize: 2, spares: 1, crashBudget: 1, tenantCrashBudget: 10, crashWindowMs: WINDOW_MS } },
  });
  other = await QueueTransport.connect({ redisUrl: stack.redisUrl, prefix: stack.prefix, tenant: 'acme' });
  expect((await stack.client.compile(policy)).status).toBe('promoted');
  expect((await other.compile(policy)).status).toBe('promoted');
});
afterAll(async () => {
  await other?.close();
  await stack?.stop();
});

describe('a program that kills its worker, past its crash budget', () => {
  it('is quarantined (SANDBOX_QUARANTINED, fail-closed under failMode open) while other tenants are decided, and runs again after the window', async () => {
    const crashed = await stack.client.check({ policy: 'crashy', input: 'boom' });
    // The death itself follows the policy's failMode (open: allow), as before.
    expect(crashed).toMatchObject({ decision: 'allow', status: 'guard_error', error: { code: 'SANDBOX_CRASHED' } });
    const quarantinedAt = Date.now();

    // Any input of that version now: refused at once, denied whatever the failMode.
    const refused = await stack.client.check({ policy: 'crashy', input: 'hello' });
    expect(refused).toMatchObject({ decision: 'deny', status: 'guard_error', error: { code: 'SANDBOX_QUARANTINED' } });
    expect(refused.error?.message).toMatch(/not run: this guard version of tenant 'mallory' killed or hung 1 sandbox workers within 3 s/);
    expect(refused.attempts).toBe(1);
    // The same program under another tenant is its own version and budget.
    expect(await other.check({ policy: 'crashy', input: 'hello' })).toMatchObject({ decision: 'allow', status: 'ok' });
    expect(await other.check({ policy: 'crashy', input: 'deny me' })).toMatchObject({ decision: 'deny', status: 'ok' });

    // Released when the window has passed, not before.
    const released = await waitFor(
      async () => {
        const decision = await stack.client.check({ policy: 'crashy', input: 'hello' });
        if (decision.status === 'ok') return { decision, at: Date.now() };
        expect(decision.error?.code).toBe('SANDBOX_QUARANTINED');
        return null;
      },
      30_000,
      'the quarantine to end',
    );
    expect(released.decision).toMatchObject({ decision: 'allow', status: 'ok' });
    // (The quarantine began at the death, a reply's latency before quarantinedAt.)
    expect(released.at - quarantinedAt).toBeGreaterThanOrEqual(WINDOW_MS - 1000);
  });
});
