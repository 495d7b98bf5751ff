import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTransport } from '@guardagent/client';
import { ValidationError } from '@guardagent/errors';
import { parsePolicyText, type RailsConfig } from '@guardagent/schemas';
import { ADMIN_KEY, startFixture, type GatewayFixture } from './gateway-fixture';

// A policy is compiled when it is stored: every mistake that would make each later check deny
// with guard_error is a 400 naming the rule, the field and the mistake, and nothing is stored.
let f: GatewayFixture;
const refundDesk = parsePolicyText(readFileSync(join(import.meta.dirname, '..', '..', '..', 'examples', 'policies', 'refund-desk.yaml'), 'utf8'), 'refund-desk.yaml');

function withRails(edit: (rails: RailsConfig) => void) {
  const policy = structuredClone(refundDesk);
  edit(policy.rails!);
  return policy;
}

beforeAll(async () => {
  f = await startFixture({ stages: ['executor'] });
});
afterAll(async () => {
  await f?.close();
});

/** PUT the policy under `id`; expect 400 and return its issues. */
async function refused(id: string, policy: unknown): Promise<Array<{ path: string; message: string }>> {
  const put = await f.call(`/v1/policies/${id}`, { method: 'PUT', body: { ...(policy as object), id } });
  const body = await put.json();
  expect(put.status, JSON.stringify(body)).toBe(400);
  expect(body.error.code).toBe('VALIDATION_FAILED');
  // Nothing was stored.
  expect((await f.call(`/v1/policies/${id}`)).status).toBe(404);
  return body.error.issues;
}

describe('PUT /v1/policies/:id compiles the rails first', () => {
  it('a CEL condition that does not compile', async () => {
    const issues = await refused('bad-cel', withRails((r) => (r.tools.send_email!.authorize[0]!.when = 'args.to == &&')));
    expect(issues).toEqual([
      { path: 'rails.tools.send_email.authorize[0].when', message: expect.stringMatching(/^rule 'own-address' \(tools\.send_email\.authorize\.own-address\): invalid CEL expression: /) },
    ]);
  });

  it('an invalid argument schema', async () => {
    const issues = await refused('bad-schema', withRails((r) => ((r.tools.send_email!.args!.properties as Record<string, Record<string, unknown>>).subject!.maxLenght = 3)));
    expect(issues).toEqual([{ path: 'rails.tools.send_email.args.properties.subject.maxLenght', message: "unknown JSON Schema keyword 'maxLenght'; did you mean 'maxLength'?" }]);
  });

  it('a pattern the linear-time engine cannot run', async () => {
    const issues = await refused('bad-pattern', withRails((r) => ((r.tools.delete_user!.args!.properties as Record<string, Record<string, unknown>>).user_id!.pattern = '(?<=u)x')));
    expect(issues).toEqual([{ path: 'rails.tools.delete_user.args.properties.user_id.pattern', message: expect.stringMatching(/is not supported/) }]);
  });

  it('references: an argument, a role and a tool that are not there, with the closest names', async () => {
    const issues = await refused(
      'bad-references',
      withRails((r) => {
        r.tools.issue_refund!.requireApproval[0]!.when = 'args.amout > 50';
        r.tools.read_account!.authorize[0]!.when = '"superviser" in subject.roles || args.user_id == subject.id';
        r.roles.supervisor!.tools[3] = 'delete_usr';
      }),
    );
    expect(issues).toHaveLength(3);
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'rails.tools.issue_refund.requireApproval[0].when', message: expect.stringMatching(/^rule 'over-50' .*unknown argument 'amout'.*did you mean 'amount'\?$/) },
        { path: 'rails.tools.read_account.authorize[0].when', message: expect.stringMatching(/^rule 'own-account' .*'superviser' is not a role.*did you mean 'supervisor'\?$/) },
        { path: 'rails.roles.supervisor.tools[3]', message: expect.stringMatching(/'delete_usr'.*did you mean 'delete_user'\?/) },
      ]),
    );
  });

  it('a mistyped field of the policy itself, with the field meant', async () => {
    const issues = await refused('bad-field', { ...refundDesk, failMod: 'open' });
    expect(issues).toEqual([{ path: 'failMod', message: "unknown field 'failMod'; did you mean 'failMode'?" }]);
  });

  it('keeps the stored version when a new one is refused; a valid one is stored; an inline policy in a check is refused too', async () => {
    expect((await f.call('/v1/policies/desk', { method: 'PUT', body: { ...refundDesk, id: 'desk' } })).status).toBe(200);
    const broken = withRails((r) => (r.tools.issue_refund!.requireApproval[0]!.when = 'args.amout > 50'));
    const put = await f.call('/v1/policies/desk', { method: 'PUT', body: { ...broken, id: 'desk', version: '2' } });
    expect(put.status).toBe(400);
    expect((await (await f.call('/v1/policies/desk')).json()).policy.version).toBe('1');

    const check = await f.call('/v1/checks', {
      body: { policy: { ...broken, id: 'inline-desk' }, subject: { id: 'u', roles: ['support_agent'] }, action: { kind: 'tool_call', tool: 'read_account', args: { user_id: 'u' } } },
    });
    expect(check.status).toBe(400);
    expect((await check.json()).error.issues[0].path).toBe('rails.tools.issue_refund.requireApproval[0].when');
  });

  it('the HTTP SDK raises the same issues as a ValidationError', async () => {
    const sdk = new HttpTransport({ baseUrl: f.url, apiKey: ADMIN_KEY });
    try {
      const error = await sdk.putPolicy(withRails((r) => (r.tools.issue_refund!.requireApproval[0]!.when = 'args.amout > 50'))).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues[0]!.message).toMatch(/did you mean 'amount'\?$/);
    } finally {
      await sdk.close();
    }
  });
});

describe('compile of a rails-only policy', () => {
  it('answers that there is no program to compile (no LLM needed), with the rule count', async () => {
    expect((await f.call('/v1/policies/desk-rails', { method: 'PUT', body: { ...refundDesk, id: 'desk-rails' } })).status).toBe(200);
    const compile = await f.call('/v1/policies/desk-rails/compile', { method: 'POST' });
    expect(compile.status).toBe(200);
    const body = await compile.json();
    expect(body).toMatchObject({ status: 'rails-only', report: null, code: null, usage: { calls: 0 } });
    expect(body.message).toMatch(/no guard requests and no program: its \d+ rail rules \(checked when it was stored\) decide every check/);
  });
});
