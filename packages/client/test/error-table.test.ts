import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckTimeoutError, GuardAgentError } from '@guardagent/errors';
import { HttpTransport, exitCodeOfError, guardTool } from '../src/index';

/**
 * The README's error-code table is what HttpTransport raises: each code's class, whether a check
 * is retried on it, and its exit code (clients/python/tests/test_error_table.py reads it for the
 * Python SDK).
 */
const README = readFileSync(join(import.meta.dirname, '..', '..', '..', 'README.md'), 'utf8');

function errorRows(): string[][] {
  const section = README.slice(README.indexOf('#### Error codes'));
  const start = section.indexOf('| code | HTTP |');
  const block = section.slice(start, section.indexOf('\n\n', start));
  return block
    .split('\n')
    .slice(2)
    .map((line) => line.trim().replace(/^\||\|$/g, '').split(' | ').map((cell) => cell.trim()));
}

/** A transport whose every request gets this answer (or a broken connection); counts the requests. */
function answering(answer: (() => Response) | 'unreachable'): { transport: HttpTransport; calls: () => number } {
  let calls = 0;
  const fake = (async () => {
    calls += 1;
    if (answer === 'unreachable') throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    return answer();
  }) as typeof fetch;
  return { transport: new HttpTransport({ baseUrl: 'http://gateway.invalid', apiKey: 'k', fetch: fake, submitAttempts: 2 }), calls: () => calls };
}

function gatewayAnswer(code: string, status: number): () => Response {
  if (code.startsWith('HTTP_')) return () => new Response('<html>teapot</html>', { status, headers: { 'content-type': 'text/html' } });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (code === 'QUOTA_EXCEEDED' || code === 'STORE_FULL') headers['retry-after'] = '3';
  return () => new Response(JSON.stringify({ error: { code, message: `the gateway's ${code}`, details: { scope: 'operate' } } }), { status, headers });
}

const job = { policy: 'refund-desk', input: 'x' };
const rows = errorRows();

describe("the README's error-code table, for HttpTransport", () => {
  it('has rows', () => {
    expect(rows.length).toBeGreaterThan(10);
  });

  it.each(rows.map((row) => [row[0]!, row] as const))('%s', async (_code, row) => {
    const [codeCell, http, , tsClass, , retried, exitCell] = row as [string, string, string, string, string, string, string];
    const code = codeCell.replaceAll('`', '');
    const exit = Number(exitCell.split(' ')[0]);
    const statuses = code.startsWith('HTTP_') ? [418] : [...http.matchAll(/\d{3}/g)].map((m) => Number(m[0]));
    const made: Array<{ error: unknown; calls: number }> = [];
    for (const status of statuses) {
      // A call that is never retried shows the class; a check shows whether it is retried.
      const once = answering(gatewayAnswer(code, status));
      const error = await once.transport.approve('apv_x', 'ops').catch((e: unknown) => e);
      const retry = answering(gatewayAnswer(code, status));
      await retry.transport.check(job).catch(() => undefined);
      made.push({ error, calls: retry.calls() });
    }
    if (http.includes('none')) {
      if (code === 'UNAVAILABLE') {
        const retry = answering('unreachable');
        made.push({ error: await retry.transport.check(job).catch((e: unknown) => e), calls: retry.calls() });
      } else if (code === 'CHECK_TIMEOUT') {
        made.push({ error: new CheckTimeoutError('idem-x', 1000), calls: 1 });
      } else if (code === 'GUARD_DENIED' || code === 'GUARD_PENDING') {
        // What guardTool raises when the gateway's decision is a deny, or a hold with its token.
        const decisions = (JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', '..', 'clients', 'contract', 'cases.json'), 'utf8')) as { decisions: Record<string, unknown> }).decisions;
        const body = JSON.stringify(decisions[code === 'GUARD_DENIED' ? 'deny' : 'pending']);
        const answered = answering(() => new Response(body, { status: 200, headers: { 'content-type': 'application/json' } }));
        const tool = guardTool(async () => 'ran', { transport: answered.transport, policy: 'p', toolName: 'tool' });
        made.push({ error: await tool({}).catch((e: unknown) => e), calls: answered.calls() });
      }
    }
    expect(made.length, code).toBeGreaterThan(0);
    for (const { error, calls } of made) {
      expect(error).toBeInstanceOf(GuardAgentError);
      expect((error as object).constructor.name, code).toBe(tsClass.replaceAll('`', ''));
      const expectedCode = code.startsWith('HTTP_') ? `HTTP_${statuses[0]}` : code;
      expect((error as GuardAgentError).code).toBe(expectedCode);
      expect(exitCodeOfError(error), code).toBe(exit);
      expect(calls, `${code}: tries of a check`).toBe(retried === 'yes' ? 2 : 1);
    }
    if (exitCell.includes('6 if ≥ 500')) {
      const server = answering(() => new Response('', { status: 500 }));
      expect(exitCodeOfError(await server.transport.approve('apv_x', 'ops').catch((e: unknown) => e))).toBe(6);
    }
  });
});
