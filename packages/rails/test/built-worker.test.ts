import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

// Services run the built code (dist/), whose worker thread is the built rails-worker-main.js, not
// the TypeScript source these tests import. The test setup has just built dist/.
it('the built rails worker thread starts and redacts, as a built executor runs it', () => {
  const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));
  const script = `
    const { RailsWorkerPool } = await import(${JSON.stringify(dist)});
    const pool = new RailsWorkerPool();
    const result = await pool.redact({ note: 'card 4111 1111 1111 1111' }, 5000);
    await pool.close();
    process.stdout.write(JSON.stringify(result));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  const result = JSON.parse(out) as { ok: boolean; value?: { note: string } };
  expect(result.ok).toBe(true);
  expect(result.value?.note).not.toContain('4111 1111 1111 1111');
  expect(result.value?.note).toContain('[REDACTED:card]');
});
