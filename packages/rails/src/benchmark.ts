import { performance } from 'node:perf_hooks';
import type { RailsConfig } from '@guardagent/schemas';
import { compileRails } from './compile-rails';
import { evaluateRails } from './evaluate-rails';
import type { RailsJob } from './rails-job';

const ID = { type: 'string', minLength: 1, maxLength: 128 };

/** A 20-rule policy (allow-list entries, schemas, conditions, filters; no rate limit or approval, which need I/O). */
export const BENCHMARK_RAILS_CONFIG: RailsConfig = {
  roles: {
    support_agent: { tools: ['read_account', 'issue_refund', 'send_email'] },
    supervisor: { tools: ['read_account', 'issue_refund', 'delete_user'] },
  },
  tools: {
    read_account: {
      args: { type: 'object', required: ['user_id'], properties: { user_id: ID } },
      authorize: [{ id: 'own-account', when: '"supervisor" in subject.roles || args.user_id == subject.id', message: 'own account only' }],
      requireApproval: [],
    },
    issue_refund: {
      args: {
        type: 'object',
        required: ['user_id', 'amount', 'reason'],
        properties: { user_id: ID, amount: { type: 'number', exclusiveMinimum: 0, maximum: 10_000 }, reason: { type: 'string', maxLength: 500 } },
      },
      authorize: [
        { id: 'own-account', when: '"supervisor" in subject.roles || args.user_id == subject.id', message: 'own account only' },
        { id: 'reason-given', when: 'size(args.reason) >= 3', message: 'a reason is required' },
        { id: 'active-subject', when: '!has(subject.attributes.suspended) || subject.attributes.suspended == false', message: 'suspended' },
      ],
      requireApproval: [{ id: 'over-limit', when: 'args.amount > 50.0 && !("supervisor" in subject.roles)', message: 'over 50' }],
    },
    send_email: {
      args: {
        type: 'object',
        required: ['to', 'subject', 'body'],
        properties: { to: { type: 'string', format: 'email' }, subject: { type: 'string', maxLength: 200 }, body: { type: 'string', maxLength: 20_000 } },
      },
      authorize: [
        { id: 'own-address', when: 'has(subject.attributes.email) && args.to == subject.attributes.email', message: 'own address only' },
      ],
      requireApproval: [],
    },
    delete_user: {
      args: { type: 'object', required: ['user_id'], properties: { user_id: ID } },
      authorize: [],
      requireApproval: [{ id: 'always', when: 'true', message: 'deleting a user needs approval' }],
    },
  },
  input: {
    pii: { kinds: ['email', 'phone', 'card', 'iban', 'ssn', 'ip', 'secret'], action: 'redact' },
    injection: { threshold: 0.5 },
  },
  output: { pii: { kinds: ['card', 'iban', 'ssn', 'secret'], action: 'redact' } },
  allowPlainJobs: false,
  approval: { ttlSeconds: 3600 },
};

const JOB: RailsJob = {
  subject: { id: 'cust-1042', roles: ['support_agent'], attributes: { email: 'jane.doe@example.com' } },
  action: { kind: 'tool_call', tool: 'issue_refund', args: { user_id: 'cust-1042', amount: 25, reason: 'damaged item on arrival' } },
  input: 'Hi, my order #88231 arrived damaged (the box was crushed). Could I get a refund of 25 EUR? Thanks, Jane',
  output: 'I am sorry to hear that. I will issue a refund of 25 EUR to your account now.',
};

/**
 * Microseconds per `evaluateRails` call (in process, no Redis) for the 20-rule policy above and a
 * typical tool-call job with short input and output texts. Warms up first.
 */
export async function benchmarkRailsEval(iterations = 10_000): Promise<number> {
  const compiled = compileRails(BENCHMARK_RAILS_CONFIG);
  const warmup = Math.min(2_000, iterations);
  for (let i = 0; i < warmup; i++) await evaluateRails(compiled, JOB);
  const started = performance.now();
  for (let i = 0; i < iterations; i++) {
    const outcome = await evaluateRails(compiled, JOB);
    if (outcome.verdict !== 'continue') throw new Error(`benchmark job was not continued: ${outcome.reasons.join('; ')}`);
  }
  return ((performance.now() - started) * 1000) / iterations;
}
