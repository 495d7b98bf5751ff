import { loadConfig } from '@guardagent/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueueTransport } from '@guardagent/client/queue';
import type { Decision, PolicyInput } from '@guardagent/schemas';
import { startGateway, type Gateway } from '@guardagent/service-gateway';
import { startTestStack, waitFor, type TestStack } from '../helpers/pipeline-stack';
import { silentLogger } from '@guardagent/telemetry';

// Attacks on the executor through ordinary checks, against the real stack (queues, executor,
// sandbox worker processes). For each: the attack's check ends fail-closed, and checks of another
// tenant submitted alongside are decided before it ends: the executor keeps serving.

let stack: TestStack;
let victim: QueueTransport;
let other: QueueTransport;
/** A gateway in the executor's process: its /readyz must keep answering during an attack. */
let gateway: Gateway;

const attackPolicy = (id: string, program: string, limits: PolicyInput['limits'] = {}, toolbox: PolicyInput['toolbox'] = ['core']): PolicyInput => ({
  id,
  toolbox,
  requests: 'Allow unless the input says attack.',
  mode: 'compiled',
  program,
  limits,
  examples: [
    { input: 'hello', label: 0 },
    { input: 'bye', label: 0 },
  ],
});

const ordinaryPolicy: PolicyInput = {
  id: 'ordinary',
  requests: 'Deny the word stop.',
  mode: 'compiled',
  program: 'return { deny: input === "stop", reasons: input === "stop" ? ["stop"] : [] };',
  examples: [
    { input: 'stop', label: 1 },
    { input: 'go', label: 0 },
  ],
};

beforeAll(async () => {
  // A 3 s lock caps any guard run at 2 s (two thirds of the lock).
  stack = await startTestStack({ config: { lockDurationMs: 3000, sandbox: { ...loadConfig({}).sandbox, memoryMb: 64, cpuMs: 1000, wallMs: 1000, maxRunsPerIsolate: 5000 } } });
  victim = await QueueTransport.connect({ redisUrl: stack.redisUrl, prefix: stack.prefix, tenant: 'attacker' });
  other = await QueueTransport.connect({ redisUrl: stack.redisUrl, prefix: stack.prefix, tenant: 'bystander' });
  expect((await other.compile(ordinaryPolicy)).status).toBe('promoted');
  gateway = await startGateway({ config: { ...stack.config, redisUrl: stack.redisUrl }, port: 0, logger: silentLogger });
});

afterAll(async () => {
  await gateway?.close();
  await victim?.close();
  await other?.close();
  await stack?.stop();
});

/** Run the attack check and 30 ordinary checks of the other tenant at once; note who finished first. */
async function underAttack(policy: string): Promise<{ attack: Decision; ordinary: Decision[]; ordinaryBeforeAttack: number; readyDuringAttack: number[] }> {
  let attackDone = false;
  let ordinaryBeforeAttack = 0;
  const attack = victim.check({ policy, input: 'attack' }, { timeoutMs: 30_000 }).finally(() => (attackDone = true));
  // /readyz of the gateway sharing the executor's process, asked every 100 ms until the attack ends.
  const readyDuringAttack: number[] = [];
  const probing = (async () => {
    while (!attackDone) {
      const response = await fetch(`${gateway.url}/readyz`, { signal: AbortSignal.timeout(5000) }).catch(() => null);
      if (!attackDone) readyDuringAttack.push(response?.status ?? 0);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const ordinary = Promise.all(
    Array.from({ length: 30 }, (_, i) =>
      other.check({ policy: 'ordinary', input: i % 2 ? 'stop' : 'go' }, { timeoutMs: 30_000 }).then((d) => {
        if (!attackDone) ordinaryBeforeAttack++;
        return d;
      }),
    ),
  );
  const result = { attack: await attack, ordinary: await ordinary, ordinaryBeforeAttack, readyDuringAttack };
  await probing;
  return result;
}

function expectOrdinaryServed(result: { ordinary: Decision[]; ordinaryBeforeAttack: number; readyDuringAttack: number[] }): void {
  // The process answered its readiness probe all along (the attack lasts ≥ 1 s: several probes).
  expect(result.readyDuringAttack.length).toBeGreaterThanOrEqual(3);
  expect(new Set(result.readyDuringAttack)).toEqual(new Set([200]));
  expect(result.ordinary.map((d) => d.status)).toEqual(Array(30).fill('ok'));
  expect(result.ordinary.map((d) => d.decision)).toEqual(Array.from({ length: 30 }, (_, i) => (i % 2 ? 'deny' : 'allow')));
  // All 30 were decided while the attack still held its sandbox worker (it takes ≥ 1 s; they take ms).
  expect(result.ordinaryBeforeAttack).toBe(30);
}

describe('the executor keeps serving while a check attacks it', () => {
  it('a program that loops under the largest cpuMs a policy may ask for ends fail-closed at the cap', async () => {
    const compiled = await victim.compile(
      attackPolicy('cpu-loop', 'if (input === "attack") { for (;;) {} } return { deny: false, reasons: [] };', { cpuMs: 60_000, wallMs: 60_000 }),
    );
    expect(compiled.status).toBe('promoted');
    const result = await underAttack('cpu-loop');
    expect(result.attack).toMatchObject({ decision: 'deny', status: 'guard_error' });
    expect(result.attack.error?.code).toMatch(/^(GUARD_CODE_FAILED|SANDBOX_HUNG)$/);
    expectOrdinaryServed(result);
  });

  it('host-side toolbox work in a loop (the task classifier on 100 KB, over and over) ends fail-closed at the run limit', async () => {
    // Every toolbox helper is linear now, so no single call outlasts the deadline: the loop is
    // stopped between calls by the run's limits (the sandbox's own tests cover a host call that
    // never returns: its worker is killed, SANDBOX_HUNG).
    const program = `if (input === "attack") {
  const big = "book a hotel and rent a car ".repeat(4000);
  for (let i = 0; i < 1e9; i++) classifyTask(big);
}
return { deny: false, reasons: [] };`;
    expect((await victim.compile(attackPolicy('host-time', program, {}, ['seeact']))).status).toBe('promoted');
    const result = await underAttack('host-time');
    expect(result.attack).toMatchObject({ decision: 'deny', status: 'guard_error' });
    // Stopped by whichever limit fires first: the pool kills the worker past the deadline
    // (SANDBOX_HUNG), or the isolate stops the loop between two calls (GUARD_CODE_FAILED).
    expect(result.attack.error?.code).toMatch(/^(GUARD_CODE_FAILED|SANDBOX_HUNG)$/);
    expect(result.attack.reasons.join(' ')).toMatch(/deadline|time limit/);
    expectOrdinaryServed(result);
    // The next check on the same policy is decided. (A tenant whose run killed a worker runs again
    // once the pool is whole, its spare replaced: on a loaded machine that may take longer than the
    // queue timeout, so this waits for it first.)
    const pool = stack.runtime!.deps.sandbox;
    await waitFor(async () => pool.stats().ready === pool.stats().size && pool.stats().spares === 1, 60_000, 'the pool whole again');
    expect(await victim.check({ policy: 'host-time', input: 'hello' }, { timeoutMs: 30_000 })).toMatchObject({ decision: 'allow', status: 'ok' });
  });

  it('a run stopped at its limit is not retried: one run, one decision', async () => {
    const before = stack.runtime!.deps.sandbox.stats();
    const decision = await victim.check({ policy: 'host-time', input: 'attack' }, { timeoutMs: 30_000 });
    expect(decision).toMatchObject({ decision: 'deny', status: 'guard_error' });
    const after = stack.runtime!.deps.sandbox.stats();
    expect(after.hung - before.hung).toBe(decision.error?.code === 'SANDBOX_HUNG' ? 1 : 0);
    expect(after.runs - before.runs).toBe(1);
    expect(after.retried - before.retried).toBe(0);
  });
});
