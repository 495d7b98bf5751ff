import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@guardagent/config';
import { CheckTimeoutError, NotFoundError, UnauthorizedError, UnavailableError, ValidationError } from '@guardagent/errors';
import { createRuntime, type Runtime } from '@guardagent/pipeline';
import { startGateway, type Gateway } from '@guardagent/service-gateway';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { GatewayError, HttpTransport, guardTool } from '../src/index';
import { refundsPolicy as policy } from './refunds-policy';
import { silentLogger } from '@guardagent/telemetry';

const ADMIN_KEY = 'http-transport-admin-key-0123456789';


let runtime: Runtime;
let gateway: Gateway;
let transport: HttpTransport;

beforeAll(async () => {
  const config = loadConfig({}, { redisUrl: testRedisUrl(), prefix: uniquePrefix('http'), adminKey: ADMIN_KEY });
  runtime = await createRuntime(config, { llm: null, logger: silentLogger });
  runtime.startWorkers();
  gateway = await startGateway({ config, port: 0, logger: silentLogger });
  transport = new HttpTransport({ baseUrl: `${gateway.url}/`, apiKey: ADMIN_KEY });
});
afterAll(async () => {
  await transport?.close();
  await gateway?.close();
  await runtime?.close();
});

describe('HttpTransport', () => {
  it('registers, compiles and checks through the gateway', async () => {
    const put = await transport.putPolicy(policy);
    expect(put).toMatchObject({ id: 'refunds', version: '1' });
    expect(put.digest).toMatch(/^[0-9a-f]{64}$/);
    const compiled = await transport.compile('refunds', { timeoutMs: 20_000 });
    expect(compiled.status).toBe('promoted');
    expect(compiled.report?.passedCount).toBe(2);

    const denied = await transport.check({ policy: 'refunds', input: 'r', context: { amount: 101 } });
    expect(denied).toMatchObject({ decision: 'deny', reasons: ['over 100'], mode: 'compiled' });
    const allowed = await transport.check({ policy: 'refunds', input: 'r', context: { amount: 100 } });
    expect(allowed.decision).toBe('allow');
    expect(await transport.result(denied.id)).toEqual(denied);
  });

  it('submits without waiting and reads the result later; unknown ids read as null', async () => {
    const { id } = await transport.submit({ policy: 'refunds', input: 'r', context: { amount: 7 } });
    let decision = await transport.result(id);
    for (let i = 0; i < 100 && !decision; i += 1) {
      await new Promise((r) => setTimeout(r, 20));
      decision = await transport.result(id);
    }
    expect(decision?.decision).toBe('allow');
    expect(await transport.result('no-such-check')).toBeNull();
  });

  it('runs a batch and streams its decisions', async () => {
    const jobs = Array.from({ length: 20 }, (_, i) => ({ policy: 'refunds', input: `r${i}`, context: { amount: i * 10 } }));
    const { id, total } = await transport.submitBatch(jobs);
    expect(total).toBe(20);
    let status = await transport.batch(id);
    for (let i = 0; i < 200 && status.state !== 'done'; i += 1) {
      await new Promise((r) => setTimeout(r, 20));
      status = await transport.batch(id);
    }
    // amounts 110..190 are over 100
    expect(status).toMatchObject({ state: 'done', done: 20, denied: 9, allowed: 11 });
    const decisions = [];
    for await (const decision of transport.batchResults(id)) decisions.push(decision);
    expect(decisions).toHaveLength(20);
    expect(decisions.filter((d) => d.decision === 'deny')).toHaveLength(9);
  });

  it("turns the gateway's errors into typed errors with the server's message", async () => {
    const unknown = await transport.check({ policy: 'missing', input: 'x' }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(NotFoundError);
    expect((unknown as NotFoundError).message).toBe("policy 'missing' not found");
    expect((unknown as NotFoundError).details).toEqual({ kind: 'policy', id: 'missing' });

    const wrongKey = new HttpTransport({ baseUrl: gateway.url, apiKey: 'ga_wrong' });
    const unauthorized = await wrongKey.putPolicy(policy).catch((e: unknown) => e);
    expect(unauthorized).toBeInstanceOf(UnauthorizedError);
    expect((unauthorized as UnauthorizedError).message).toBe('Invalid API key');

    // Client-side validation names the field before any request is made.
    const invalid = await transport.check({ policy: 'refunds', subject: { roles: [] } } as never).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ValidationError).issues.map((i) => i.path)).toEqual(['subject.id']);

    // Server-side validation (the body passes the client schema but not the route's): still typed, with the field.
    const feedback = await transport.feedback('any', { correctLabel: 3 as never }).catch((e: unknown) => e);
    expect(feedback).toBeInstanceOf(ValidationError);
    expect((feedback as ValidationError).issues.map((i) => i.path)).toEqual(['correctLabel']);

    const decided = await transport.check({ policy: 'refunds', input: 'r', context: { amount: 1 } });
    const conflict = await transport.feedback(decided.id, { correctLabel: 1 }).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(GatewayError);
    expect(conflict).toMatchObject({ code: 'FEEDBACK_NOT_APPLICABLE', status: 409 });
  });

  it('fails with UnavailableError when the gateway cannot be reached', async () => {
    const nowhere = new HttpTransport({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', requestTimeoutMs: 2000 });
    const error = await nowhere.result('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnavailableError);
    expect((error as Error).message).toContain('http://127.0.0.1:9');
  });

  it('throws CheckTimeoutError with the job id when no decision comes in time', async () => {
    const config = loadConfig({}, { redisUrl: testRedisUrl(), prefix: uniquePrefix('http-idle'), adminKey: ADMIN_KEY });
    const idle = await startGateway({ config, port: 0, logger: silentLogger }); // no workers behind it
    const client = new HttpTransport({ baseUrl: idle.url, apiKey: ADMIN_KEY, maxServerWaitMs: 100 });
    try {
      await client.putPolicy(policy);
      const started = Date.now();
      const error = await client.check({ policy: 'refunds', input: 'r' }, { timeoutMs: 400 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CheckTimeoutError);
      // The SDK sends every check with an idempotency key (a random one here), so the id derives from it.
      expect((error as CheckTimeoutError).jobId).toMatch(/^idem-[0-9a-f]{40}$/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(380);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await client.close();
      await idle.close();
    }
  });
});

describe('HttpTransport and PII in tool-call arguments (issue 32)', () => {
  it('the redacted arguments cross the gateway in the decision (zod on both sides), and guardTool runs the tool with them', async () => {
    await transport.putPolicy({
      id: 'http-mail',
      specification: 'Sends emails.',
      toolbox: ['core', 'rails'],
      rails: { roles: { clerk: { tools: ['send_email'] } }, input: { pii: { kinds: ['card'], action: 'redact' } } },
    } as never);
    const sent: unknown[] = [];
    const sendEmail = guardTool(async (args: { to: string; body: string; n: number }) => {
      sent.push(args);
      return 'sent';
    }, {
      transport,
      policy: 'http-mail',
      toolName: 'send_email',
      subject: { id: 'u1', roles: ['clerk'] },
    });
    expect(await sendEmail({ to: 'a@example.com', body: 'card 4111 1111 1111 1111', n: 4111111111111111 })).toBe('sent');
    expect(sent).toEqual([{ to: 'a@example.com', body: 'card [REDACTED:card]', n: '[REDACTED:card]' }]);
  });
});
