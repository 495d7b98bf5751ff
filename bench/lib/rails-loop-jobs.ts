import type { GuardJobInput, PolicyInput } from '@guardagent/schemas';

/** A rails-only policy with the refund desk's input filters, recorded in the decision log. */
export const RAILS_LOOP_POLICY: PolicyInput = {
  id: 'loop-desk',
  toolbox: ['core', 'rails'],
  decisionLog: true,
  rails: {
    roles: { support_agent: { tools: ['send_email'] } },
    input: { injection: { threshold: 0.5 }, pii: { kinds: ['card', 'ssn', 'secret'], action: 'redact' } },
    output: { pii: { kinds: ['card'], action: 'redact' } },
  },
} as PolicyInput;

const MAX = 2_000_000;
const jwt = 'eyJ'.repeat(Math.floor((MAX - 10) / 3));
const BEGIN = '-----BEGIN RSA PRIVATE KEY-----\n';
const pem = BEGIN.repeat(Math.floor((MAX - 10) / BEGIN.length));
const subject = { id: 'u-1', roles: ['support_agent'] };
const message = (text: string): GuardJobInput => ({ policy: 'loop-desk', subject, action: { kind: 'message', role: 'user', text } });
// The arguments' JSON text must stay under the 2,000,000-character cap too.
const email = (body: string): GuardJobInput => ({ policy: 'loop-desk', subject, action: { kind: 'tool_call', tool: 'send_email', args: { to: 'a@example.com', body: body.slice(0, MAX - 100) } } });

export const RAILS_LOOP_JOBS: Record<string, GuardJobInput> = {
  'small message': message('Where is my order 1234? It was due on Monday.'),
  '2 MB JWT-like message': message(jwt),
  '2 MB PEM-like message': message(pem),
  '2 MB JWT-like tool argument': email(jwt),
  '2 MB JWT-like input, output and message': { ...message(jwt), input: jwt, output: jwt },
  '2 MB PEM-like tool argument': email(pem),
};
