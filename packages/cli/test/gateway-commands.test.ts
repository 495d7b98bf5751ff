import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { EXIT_CODES } from '@guardagent/client';
import { loadConfig } from '@guardagent/config';
import { createRuntime, type Runtime } from '@guardagent/pipeline';
import { PolicySchema } from '@guardagent/schemas';
import { startGateway, type Gateway } from '@guardagent/service-gateway';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { silentLogger } from '@guardagent/telemetry';

// The commands that talk to the gateway, against a real one (and an executor) in this process.
const BIN = join(import.meta.dirname, '..', 'bin', 'guardagent.mjs');
const POLICIES = join(import.meta.dirname, '..', '..', '..', 'examples', 'policies');
const ADMIN = 'cli-gateway-admin-key-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'guardagent-gw-cli-'));
let runtime: Runtime;
let gateway: Gateway;

/** The CLI as a child process (asynchronously: the gateway answering it runs in this process). */
function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, GUARDAGENT_URL: gateway.url, GUARDAGENT_API_KEY: '', GUARDAGENT_ADMIN_KEY: '', REDIS_URL: '', ...env },
      timeout: 120_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
const asAdmin = (args: string[]) => cli(args, { GUARDAGENT_ADMIN_KEY: ADMIN });
const lineOf = (file: string, text: string) => readFileSync(file, 'utf8').split('\n').findIndex((line) => line.includes(text)) + 1;
/** refund-desk.yaml with its text edited, written to `name`. */
function desk(name: string, edit: (text: string) => string = (t) => t): string {
  const file = join(dir, name);
  writeFileSync(file, edit(readFileSync(join(POLICIES, 'refund-desk.yaml'), 'utf8')));
  return file;
}

beforeAll(async () => {
  const config = loadConfig({}, { redisUrl: testRedisUrl(), prefix: uniquePrefix('gwcli'), adminKey: ADMIN });
  runtime = await createRuntime(config, { llm: null, logger: silentLogger });
  runtime.startWorkers(['executor']);
  gateway = await startGateway({ config, port: 0, logger: silentLogger });
});
afterAll(async () => {
  await gateway?.close();
  await runtime?.close();
});

describe('guardagent tenants', () => {
  it('creates tenants, lists them, and sets, unsets and resets their quotas; the admin key only', async () => {
    const created = await asAdmin(['tenants', 'create', '--id', 'acme', '--name', 'Acme Corp']);
    expect(created.code, created.stderr).toBe(EXIT_CODES.OK);
    expect(JSON.parse(created.stdout)).toMatchObject({ id: 'acme', apiKey: expect.stringMatching(/^ga_/), key: { scopes: ['admin'] } });
    expect((await asAdmin(['tenants', 'create', '--id', 'globex'])).code).toBe(EXIT_CODES.OK);
    const taken = await asAdmin(['tenants', 'create', '--id', 'acme']);
    expect(taken.code).toBe(EXIT_CODES.INVALID);
    expect(taken.stderr).toMatch(/CONFLICT: tenant 'acme' already exists/);

    const listed = JSON.parse((await asAdmin(['tenants', 'list'])).stdout);
    expect(listed.tenants.map((t: { id: string }) => t.id)).toEqual(['acme', 'globex']);
    expect(listed.tenants[0]).toMatchObject({ name: 'Acme Corp' });

    const set = JSON.parse((await asAdmin(['tenants', 'quotas', 'acme', '--set', 'checksPerSecond=50', '--set', 'policies=20'])).stdout);
    expect(set.overrides).toEqual({ checksPerSecond: 50, policies: 20 });
    expect(set.quotas.checksPerSecond).toBe(50);
    const unset = JSON.parse((await asAdmin(['tenants', 'quotas', 'acme', '--unset', 'policies'])).stdout);
    expect(unset.overrides).toEqual({ checksPerSecond: 50 });
    expect(JSON.parse((await asAdmin(['tenants', 'quotas', 'acme'])).stdout).overrides).toEqual({ checksPerSecond: 50 });
    expect(JSON.parse((await asAdmin(['tenants', 'quotas', 'acme', '--reset'])).stdout).overrides).toEqual({});
    const slip = await asAdmin(['tenants', 'quotas', 'acme', '--set', 'checksPerSecnd=5']);
    expect(slip.code).toBe(EXIT_CODES.INVALID);
    expect(slip.stderr).toMatch(/did you mean 'checksPerSecond'\?/);

    const noKey = await cli(['tenants', 'list']);
    expect(noKey.code).toBe(EXIT_CODES.INVALID);
    expect(noKey.stderr).toMatch(/tenants needs GUARDAGENT_ADMIN_KEY/);
    const tenantKey = await cli(['tenants', 'list'], { GUARDAGENT_API_KEY: JSON.parse(created.stdout).apiKey });
    expect(tenantKey.code).toBe(EXIT_CODES.INVALID);
    expect(tenantKey.stderr).toMatch(/FORBIDDEN/);
    const down = await cli(['tenants', 'list', '--gateway', 'http://127.0.0.1:9'], { GUARDAGENT_ADMIN_KEY: ADMIN });
    expect(down.code).toBe(EXIT_CODES.UNAVAILABLE);
    expect(down.stderr).toMatch(/cannot reach the gateway/);
  });
});

describe('guardagent policy put|get|versions|diff', () => {
  it('refuses a policy with a mistake of each kind, naming the file, line, rule and closest name (exit 2), and stores nothing', async () => {
    const mistakes: Array<[string, (t: string) => string, RegExp]> = [
      ['cel', (t) => t.replace('when: args.amount > 50', 'when: args.amount > &&'), /rails\.tools\.issue_refund\.requireApproval\[0\]\.when: rule 'over-50' .*invalid CEL expression/],
      ['schema', (t) => t.replace('maxLength: 200', 'maxLenght: 200'), /rails\.tools\.send_email\.args\.properties\.subject\.maxLenght: unknown JSON Schema keyword 'maxLenght'; did you mean 'maxLength'\?/],
      ['pattern', (t) => t.replace('user_id: { type: string, minLength: 1, maxLength: 128 }', () => "user_id: { type: string, pattern: '^(u)\\1$' }"), /rails\.tools\.read_account\.args\.properties\.user_id\.pattern: pattern .* is not supported/],
      ['reference', (t) => t.replace('when: args.amount > 50', 'when: args.amout > 50'), /unknown argument 'amout'.*did you mean 'amount'\?/],
    ];
    for (const [kind, edit, message] of mistakes) {
      const file = desk(`bad-${kind}.yaml`, (t) => edit(t).replace('id: refund-desk', `id: bad-${kind}`));
      const put = await asAdmin(['policy', 'put', file]);
      expect(put.code, `${kind}: ${put.stderr}`).toBe(EXIT_CODES.INVALID);
      expect(put.stderr, kind).toMatch(new RegExp(`${file.replaceAll('.', '\\.')}:\\d+:\\d+: `));
      expect(put.stderr, kind).toMatch(message);
      expect((await asAdmin(['policy', 'get', `bad-${kind}`])).code, kind).toBe(EXIT_CODES.INVALID); // 404: nothing stored
    }
    const cel = join(dir, 'bad-cel.yaml');
    expect((await asAdmin(['policy', 'put', cel])).stderr).toContain(`${cel}:${lineOf(cel, 'args.amount > &&')}:`);
  });

  it('puts versions, gets one back as a policy file, lists the versions and diffs them', async () => {
    const v1 = desk('desk-v1.yaml');
    const put1 = await asAdmin(['policy', 'put', v1]);
    expect(put1.code, put1.stderr).toBe(EXIT_CODES.OK);
    const first = JSON.parse(put1.stdout);
    expect(first).toMatchObject({ file: v1, id: 'refund-desk', version: '1' });

    // Unchanged: diff against the stored version says so.
    const same = await asAdmin(['policy', 'diff', v1]);
    expect(same.code, same.stderr).toBe(EXIT_CODES.OK);
    expect(same.stdout).toContain('(no changes)');

    const v2 = desk('desk-v2.yaml', (t) => t.replace('version: 1', 'version: 2').replace('when: args.amount > 50', 'when: args.amount > 100'));
    const pending = await asAdmin(['policy', 'diff', v2]);
    expect(pending.code).toBe(EXIT_CODES.DENIED);
    expect(pending.stdout).toContain('~ rails.tools.issue_refund.requireApproval[0].when: "args.amount > 50" → "args.amount > 100"');
    expect(pending.stdout).toContain('~ version: "1" → "2"');
    expect((await asAdmin(['policy', 'put', '--compile', v2])).code).toBe(EXIT_CODES.OK);

    const versions = await asAdmin(['policy', 'versions', 'refund-desk']);
    expect(versions.code).toBe(EXIT_CODES.OK);
    expect(versions.stdout.split('\n').filter(Boolean).map((l) => l.slice(0, 4).trim())).toEqual(['* 2', '1']);
    expect(versions.stdout).toContain(first.digest.slice(0, 16));

    const stored = await asAdmin(['policy', 'diff', 'refund-desk']);
    expect(stored.code).toBe(EXIT_CODES.DENIED);
    expect(stored.stdout).toMatch(/^--- refund-desk version 1 \([0-9a-f]{12}\)\n\+\+\+ refund-desk version 2 /);
    expect(stored.stdout).toContain('"args.amount > 50" → "args.amount > 100"');
    const json = JSON.parse((await asAdmin(['policy', 'diff', 'refund-desk', '--from', first.digest.slice(0, 10), '--to', '2', '--json'])).stdout);
    expect(json.same).toBe(false);
    expect(json.changes).toContainEqual({ path: 'version', kind: 'changed', from: '1', to: '2' });

    // get prints a policy file: it parses to the stored version.
    const got = await asAdmin(['policy', 'get', 'refund-desk', '--at', 'previous']);
    expect(got.code).toBe(EXIT_CODES.OK);
    expect(got.stdout).toMatch(/^# refund-desk version 1 /);
    expect(PolicySchema.parse(parse(got.stdout)).rails?.tools.issue_refund?.requireApproval[0]?.when).toBe('args.amount > 50');
    const view = JSON.parse((await asAdmin(['policy', 'get', 'refund-desk', '--json'])).stdout);
    expect(view).toMatchObject({ policy: { version: '2' }, program: null });
    // Two files, no gateway needed.
    const files = await cli(['policy', 'diff', v1, v2, '--gateway', 'http://127.0.0.1:9']);
    expect(files.code).toBe(EXIT_CODES.DENIED);
    expect(files.stdout).toContain('"args.amount > 50" → "args.amount > 100"');
    const unknown = await asAdmin(['policy', 'diff', 'refund-desk', '--from', 'nine']);
    expect(unknown.code).toBe(EXIT_CODES.INVALID);
    expect(unknown.stderr).toMatch(/NOT_FOUND/);
  });

  it("compile of a rails-only policy says there is nothing to compile (no LLM), exit 0", async () => {
    const result = await cli(['compile', '--policy', join(POLICIES, 'refund-desk.yaml')], { REDIS_URL: '', GUARDAGENT_LLM_BASE_URL: '' });
    expect(result.code, result.stderr).toBe(EXIT_CODES.OK);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'rails-only', message: expect.stringMatching(/no guard requests and no program/) });
  });
});

describe('guardagent approve and keys, both through the gateway', () => {
  it('approves a held call once; a used token is refused (1), an unknown one is invalid (2), the subject cannot approve its own call (1)', async () => {
    const acme = await asAdmin(['tenants', 'create', '--id', 'approvals']);
    const key = JSON.parse(acme.stdout).apiKey as string;
    const asAcme = (args: string[]) => cli(args, { GUARDAGENT_API_KEY: key });
    expect((await asAcme(['policy', 'put', join(POLICIES, 'refund-desk.yaml')])).code).toBe(EXIT_CODES.OK);

    const refund = async (approvalToken?: string): Promise<{ decision: string; approval?: { token: string } }> => {
      const response = await fetch(`${gateway.url}/v1/checks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          policy: 'refund-desk',
          subject: { id: 'cust-42', roles: ['support_agent'] },
          action: { kind: 'tool_call', tool: 'issue_refund', args: { user_id: 'cust-42', amount: 80, reason: 'broken' } },
          ...(approvalToken ? { context: { approvalToken } } : {}),
        }),
      });
      return (await response.json()) as { decision: string; approval?: { token: string } };
    };
    const hold = async () => {
      const decision = await refund();
      expect(decision.decision).toBe('pending');
      return decision.approval!.token;
    };

    const token = await hold();
    const approved = await asAcme(['approve', '--token', token, '--approver', 'ops-lead']);
    expect(approved.code, approved.stderr).toBe(EXIT_CODES.OK);
    expect(JSON.parse(approved.stdout)).toEqual({ result: 'approved' });
    expect(JSON.parse((await asAcme(['approve', '--token', token, '--approver', 'ops-lead'])).stdout)).toEqual({ result: 'already-approved' });
    // The agent repeats the call with the token: allowed once; the token is used.
    expect((await refund(token)).decision).toBe('allow');
    const used = await asAcme(['approve', '--token', token, '--approver', 'ops-lead']);
    expect(used.code).toBe(EXIT_CODES.DENIED);
    expect(JSON.parse(used.stdout)).toMatchObject({ result: 'refused', code: 'CONFLICT', message: expect.stringMatching(/used/) });

    const own = await asAcme(['approve', '--token', await hold(), '--approver', 'cust-42']);
    expect(own.code).toBe(EXIT_CODES.DENIED);
    expect(JSON.parse(own.stdout)).toMatchObject({ result: 'refused', code: 'FORBIDDEN' });

    const unknown = await asAcme(['approve', '--token', `apv_${'x'.repeat(40)}`, '--approver', 'ops-lead']);
    expect(unknown.code).toBe(EXIT_CODES.INVALID);
    expect(unknown.stderr).toMatch(/NOT_FOUND/);

    // The held calls, by id: listed (never a token), rejected with a reason, approved with one.
    const pendingToken = await hold();
    const second = await hold();
    const listed = await asAcme(['approvals', '--policy', 'refund-desk']);
    expect(listed.code, listed.stderr).toBe(EXIT_CODES.OK);
    const lines = listed.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(listed.stdout).not.toContain('apv_');
    const ids = lines.map((line: { id: string }) => line.id);
    expect(lines.every((line: { status: string; subject: string }) => line.status === 'pending' && line.subject === 'cust-42')).toBe(true);
    const [pendingId, secondId] = [pendingToken, second].map((t) => createHash('sha256').update(t).digest('hex'));
    expect(ids).toEqual(expect.arrayContaining([pendingId, secondId]));
    const rejected = await asAcme(['reject', '--id', pendingId!, '--approver', 'ops-lead', '--reason', 'refunded already']);
    expect(rejected.code, rejected.stderr).toBe(EXIT_CODES.OK);
    expect(JSON.parse(rejected.stdout)).toEqual({ result: 'rejected' });
    const refusedRefund = (await refund(pendingToken)) as { decision: string; reasons?: string[] };
    expect(refusedRefund.decision).toBe('deny');
    expect(refusedRefund.reasons).toContain('the approval was rejected by ops-lead: refunded already');
    const lateApproval = await asAcme(['approve', '--id', pendingId!, '--approver', 'ops-lead']);
    expect(lateApproval.code).toBe(EXIT_CODES.DENIED);
    expect(JSON.parse((await asAcme(['approve', '--id', secondId!, '--approver', 'ops-lead', '--reason', 'ok'])).stdout)).toEqual({ result: 'approved' });
    const shown = await asAcme(['approvals', 'show', secondId!]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: secondId, status: 'approved', approver: 'ops-lead', reason: 'ok' });
    expect((await asAcme(['approvals', '--status', 'approved'])).stdout).toContain(secondId);
    expect((await asAcme(['approve', '--approver', 'ops-lead'])).code).toBe(EXIT_CODES.INVALID);

    // The keys of the same tenant, with the same key and gateway option.
    const keys = await asAcme(['keys', 'list']);
    expect(keys.code, keys.stderr).toBe(EXIT_CODES.OK);
    expect(JSON.parse(keys.stdout).map((k: { scopes: string[] }) => k.scopes)).toEqual([['admin']]);
    const noKey = await cli(['approve', '--token', token, '--approver', 'x']);
    expect(noKey.code).toBe(EXIT_CODES.INVALID);
    expect(noKey.stderr).toMatch(/approve needs GUARDAGENT_API_KEY/);
  });
});
