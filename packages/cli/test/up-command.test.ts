import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';

const BIN = join(import.meta.dirname, '..', 'bin', 'guardagent.mjs');
const ADMIN = 'up-test-admin-key-0123456789';

describe('guardagent up --gateway-port', () => {
  it('runs every stage and the gateway in one process, serves a check, and stops cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, [BIN, 'up', '--gateway-port', '0'], {
      env: { ...process.env, REDIS_URL: testRedisUrl(), GUARDAGENT_PREFIX: uniquePrefix('up'), GUARDAGENT_ADMIN_KEY: ADMIN },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 60_000;
      let url: string | null = null;
      while (!url && Date.now() < deadline) {
        url = /gateway on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1] ?? null;
        if (!url) await new Promise((r) => setTimeout(r, 100));
      }
      expect(url, stderr).not.toBeNull();
      let ready = 0;
      while (ready !== 200 && Date.now() < deadline) {
        ready = (await fetch(`${url}/readyz`)).status;
        if (ready !== 200) await new Promise((r) => setTimeout(r, 200));
      }
      expect(ready).toBe(200);

      const auth = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
      const policy = {
        id: 'up-policy',
        requests: 'Deny the word stop.',
        mode: 'compiled',
        program: "return { deny: String(input).includes('stop'), reasons: String(input).includes('stop') ? ['said stop'] : [] };",
        examples: [
          { input: 'please stop', label: 1 },
          { input: 'go on', label: 0 },
        ],
      };
      expect((await fetch(`${url}/v1/policies/up-policy`, { method: 'PUT', headers: auth, body: JSON.stringify(policy) })).status).toBe(200);
      const compiled = (await (await fetch(`${url}/v1/policies/up-policy/compile`, { method: 'POST', headers: { authorization: auth.authorization } })).json()) as { status: string };
      expect(compiled.status, JSON.stringify(compiled)).toBe('promoted');
      const decision: unknown = await (await fetch(`${url}/v1/checks`, { method: 'POST', headers: auth, body: JSON.stringify({ policy: 'up-policy', input: 'stop now' }) })).json();
      expect(decision).toMatchObject({ decision: 'deny', status: 'ok', mode: 'compiled', reasons: ['said stop'] });

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(stderr).toMatch(/finishing in-flight jobs/);
    } finally {
      child.kill('SIGKILL');
    }
  }, 120_000);
});
