import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES, HttpTransport } from '@guardagent/client';
import { parsePolicyText } from '@guardagent/schemas';
import { POLICY_FILE, SCRIPT, runAgent } from '../../../examples/agent-ts/agent';
import { ADMIN_KEY, startFixture, type GatewayFixture } from './gateway-fixture';

// The examples run against a real gateway, so they cannot rot silently.
let f: GatewayFixture;
let transport: HttpTransport;

beforeAll(async () => {
  f = await startFixture({ stages: ['executor', 'memory'] });
  transport = new HttpTransport({ baseUrl: f.url, apiKey: ADMIN_KEY });
  await transport.putPolicy(parsePolicyText(await readFile(POLICY_FILE, 'utf8'), 'refund-desk.yaml'));
});
afterAll(async () => {
  await transport?.close();
  await f?.close();
});

describe('examples/agent-ts/agent.ts', () => {
  it('runs the allowed calls and stops the others with their reasons', async () => {
    const outcomes = await runAgent(transport);
    expect(outcomes.map((o) => o.turn)).toEqual(SCRIPT);
    expect(outcomes.map((o) => `${o.turn.tool}:${o.outcome}`)).toEqual([
      'read_account:ran',
      'read_account:denied',
      'issue_refund:ran',
      'issue_refund:pending',
      'send_email:ran',
      'send_email:denied',
      'delete_user:denied',
    ]);
    expect(outcomes[1].detail).toContain('a support agent may read only the account');
    expect(outcomes[3].detail).toContain('refunds over 50 need');
    expect(outcomes[2].detail).toContain('"refunded":20');
  });
});

describe('examples/python/check.py', () => {
  const script = fileURLToPath(new URL('../../../examples/python/check.py', import.meta.url));
  // Asynchronously: the gateway answering the script runs in this very process.
  const python = (args: string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn('python3', [script, ...args], { timeout: 30_000 });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });
  const run = (...args: string[]) => python(['--url', f.url, '--key', ADMIN_KEY, ...args]);

  it('exits 0 on allow, 1 on deny, 4 on pending and 3 on a guard error, printing the decision (the README table)', async () => {
    const allow = await run('--tool', 'read_account', '--args', '{"user_id": "cust-42"}');
    expect(allow.stderr).toBe('');
    expect(allow.status).toBe(0);
    expect(JSON.parse(allow.stdout)).toMatchObject({ decision: 'allow', layer: 'rails' });

    const deny = await run('--tool', 'read_account', '--args', '{"user_id": "cust-7"}');
    expect(deny.status).toBe(1);
    expect(JSON.parse(deny.stdout).reasons.join(' ')).toContain('only the account');

    const pending = await run('--tool', 'issue_refund', '--args', '{"user_id": "cust-42", "amount": 400, "reason": "broken TV"}');
    expect(pending.status).toBe(EXIT_CODES.PENDING);
    expect(JSON.parse(pending.stdout).approval.token).toMatch(/^apv_/);

    // Guard requests, compiled mode and no program: every check is a fail-closed guard_error.
    await transport.putPolicy({ id: 'never-compiled', requests: 'Deny refunds to other accounts.', mode: 'compiled' });
    const guardError = await run('--policy', 'never-compiled');
    expect(guardError.status).toBe(EXIT_CODES.GUARD_ERROR);
    expect(JSON.parse(guardError.stdout)).toMatchObject({ decision: 'deny', status: 'guard_error' });
  });

  it('exits 6 when the gateway cannot be reached', async () => {
    const closed = await python(['--url', 'http://127.0.0.1:9', '--key', ADMIN_KEY]);
    expect(closed.status).toBe(EXIT_CODES.UNAVAILABLE);
    expect(closed.stderr).toContain('error:');
  });

  it("exits 2 with the server's error code and each invalid field", async () => {
    const unknown = await run('--policy', 'no-such-policy');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('404 NOT_FOUND');
    const invalid = await run('--subject', '{"roles": "agent"}');
    expect(invalid.status).toBe(2);
    expect(invalid.stderr).toContain('subject.id');
    expect(invalid.stderr).toContain('subject.roles');
    const unauthorized = await python(['--url', f.url, '--key', 'ga_wrong']);
    expect(unauthorized.status).toBe(2);
    expect(unauthorized.stderr).toContain('401 UNAUTHORIZED');
  });
});
