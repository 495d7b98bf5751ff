import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@guardagent/config';
import { GuardDeniedError } from '@guardagent/errors';
import { createRuntime, silentLogger, type Runtime } from '@guardagent/pipeline';
import { parsePolicyText, type Decision } from '@guardagent/schemas';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { QueueTransport, guardTool } from '../src/index';

const deskPolicy = {
  id: 'desk',
  specification: 'A support agent reads accounts and issues refunds.',
  toolbox: ['core', 'rails'] as const,
  rails: {
    roles: { support_agent: { tools: ['read_account', 'issue_refund'] } },
    tools: {
      read_account: {
        args: { type: 'object', required: ['user_id'], properties: { user_id: { type: 'string' } } },
        authorize: [{ id: 'own-account', when: 'args.user_id == subject.id', message: 'only the session user\'s account' }],
      },
      issue_refund: {
        args: { type: 'object', required: ['user_id', 'amount'], properties: { user_id: { type: 'string' }, amount: { type: 'number' } } },
        requireApproval: [{ id: 'over-50', when: 'args.amount > 50', message: 'refunds over 50 need approval' }],
      },
    },
  },
};

let runtime: Runtime;
let transport: QueueTransport;

beforeAll(async () => {
  const config = loadConfig({}, { redisUrl: testRedisUrl(), prefix: uniquePrefix('tool') });
  runtime = await createRuntime(config, { llm: null, logger: silentLogger });
  runtime.startWorkers(['executor']);
  transport = await QueueTransport.connect({ redisUrl: config.redisUrl!, prefix: config.prefix });
  await transport.putPolicy(deskPolicy as never);
});
afterAll(async () => {
  await transport?.close();
  await runtime?.close();
});

describe('guardTool', () => {
  const subject = { id: 'u1', roles: ['support_agent'] };

  it('runs the tool only when the guard allows the call, and sends it as a tool_call action', async () => {
    const calls: unknown[] = [];
    const seen: Decision[] = [];
    const readAccount = guardTool(async (args: { user_id: string }) => {
      calls.push(args);
      return { balance: 42 };
    }, {
      transport,
      policy: 'desk',
      toolName: 'read_account',
      subject,
      input: 'what is my balance?',
      onDecision: (d) => seen.push(d),
    });
    expect(readAccount.toolName).toBe('read_account');
    expect(await readAccount({ user_id: 'u1' })).toEqual({ balance: 42 });
    expect(calls).toEqual([{ user_id: 'u1' }]);
    expect(seen[0]).toMatchObject({ decision: 'allow', layer: 'rails' });

    const denied = await readAccount({ user_id: 'someone-else' }).catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(GuardDeniedError);
    expect((denied as GuardDeniedError).reasons.join(' ')).toContain("only the session user's account");
    expect(((denied as GuardDeniedError).decision as Decision).rules).toContain('tools.read_account.authorize.own-account');
    expect(calls).toHaveLength(1);
  });

  it('treats pending (held for approval) as not allowed, carrying the approval token', async () => {
    let ran = false;
    const refund = guardTool(async (_args: { user_id: string; amount: number }) => (ran = true), {
      transport,
      policy: 'desk',
      toolName: 'issue_refund',
      subject: async () => subject,
    });
    const held = await refund({ user_id: 'u1', amount: 80 }).catch((e: unknown) => e);
    expect(held).toBeInstanceOf(GuardDeniedError);
    const decision = (held as GuardDeniedError).decision as Decision;
    expect(decision.decision).toBe('pending');
    expect(decision.approval?.token).toMatch(/^apv_/);
    expect((held as GuardDeniedError).reasons.join(' ')).toContain('refunds over 50 need approval');
    expect(ran).toBe(false);
    expect(await refund({ user_id: 'u1', amount: 20 })).toBe(true);
  });

  it('denies a tool the subject\'s role may not call, per the refund-desk example policy', async () => {
    const text = await readFile(new URL('../../../examples/policies/refund-desk.yaml', import.meta.url), 'utf8');
    await transport.putPolicy(parsePolicyText(text, 'refund-desk.yaml'));
    const deleteUser = guardTool(async () => 'deleted', {
      transport,
      policy: 'refund-desk',
      toolName: 'delete_user',
      subject: { id: 'u1', roles: ['support_agent'], attributes: { email: 'u1@example.com' } },
    });
    const error = await deleteUser({ user_id: 'u2' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GuardDeniedError);
    expect(((error as GuardDeniedError).decision as Decision).decision).toBe('deny');
    const sendEmail = guardTool(async (args: { to: string; subject: string; body: string }) => `sent to ${args.to}`, {
      transport,
      policy: 'refund-desk',
      toolName: 'send_email',
      subject: { id: 'u1', roles: ['support_agent'], attributes: { email: 'u1@example.com' } },
    });
    expect(await sendEmail({ to: 'u1@example.com', subject: 'Refund', body: 'Your refund is on its way.' })).toBe('sent to u1@example.com');
    await expect(sendEmail({ to: 'attacker@example.com', subject: 'x', body: 'y' })).rejects.toBeInstanceOf(GuardDeniedError);
  });
});
