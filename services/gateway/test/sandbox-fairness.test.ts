import { readFileSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@guardagent/config';
import { waitFor } from '@guardagent/testing';
import { startFixture, type GatewayFixture } from './gateway-fixture';

// One tenant must not stop every tenant's guard programs (issue 32). A real gateway, a real
// executor with two sandbox workers and a warm spare (the production worker, real toolbox packs).
// Tenant mallory runs guard programs that kill their worker on the inputs it chooses (a
// 2^28-character split: a V8 fatal error), live and by replaying its decision log against a
// shadow version; tenant shop keeps checking with a Mind2Web-SC program over the seeact pack
// (WordNet, the task indexes), which a cold worker would take hundreds of ms to seconds to load.

let f: GatewayFixture;
const owner: Record<string, string> = {};

const SEEACT_PROGRAM = `
  const action = parseSeeActAction(String(output));
  const task = classifyTask(String(input));
  const english = readEnglish(String(input));
  const flight = task.categories.includes('flight');
  if (!english.english) return { deny: true, reasons: ['the task does not read as English'] };
  if (flight && context.member !== true) return { deny: true, reasons: ['booking flights needs a membership (' + action.action + ')'] };
  return { deny: false, reasons: ['categories: ' + (task.categories.join(',') || 'none')] };`;

const shopPolicy = {
  id: 'm2w',
  version: '1',
  requests: 'Only members may book flights; tasks must read as English.',
  mode: 'compiled',
  toolbox: ['core', 'seeact'],
  program: SEEACT_PROGRAM,
  examples: [
    { id: 'flight', input: 'Book a flight to Paris', output: 'ELEMENT: A\nACTION: CLICK\nVALUE: None', context: { member: false }, label: 1 },
    { id: 'member', input: 'Book a flight to Paris', output: 'ELEMENT: A\nACTION: CLICK\nVALUE: None', context: { member: true }, label: 0 },
    { id: 'movies', input: 'Browse comedy movies', output: 'ELEMENT: B\nACTION: CLICK\nVALUE: None', context: {}, label: 0 },
  ],
};
/** What shop sends, and what its program must answer: a jetliner is a flight by WordNet meaning only. */
const SHOP_TASKS: Array<{ input: string; context: Record<string, unknown>; decision: 'allow' | 'deny' }> = [
  { input: 'Find a jetliner seat to Rome', context: { member: false }, decision: 'deny' },
  { input: 'Book a flight to Oslo', context: { member: true }, decision: 'allow' },
  { input: 'Rent a car in Denver', context: {}, decision: 'allow' },
  { input: 'kaufen sie das sofa bitte jetzt', context: {}, decision: 'deny' },
  { input: 'Watch a documentary about whales', context: {}, decision: 'allow' },
];

/** Crashes its worker on any input that mentions "boom"; decides the rest. */
const crashingProgram = (decision = "input === 'deny me'") =>
  `if (String(input).includes('boom')) { 'x'.repeat(2 ** 28).split(''); }\nreturn { deny: ${decision}, reasons: ['decided'] };`;
const crashExamples = [
  { id: 'a', input: 'deny me', label: 1 },
  { id: 'b', input: 'hello', label: 0 },
];

beforeAll(async () => {
  f = await startFixture({
    // Every stage, so that /readyz answers on the sandbox pool alone.
    config: { sandbox: { ...loadConfig({}).sandbox, poolSize: 2, spares: 1, crashBudget: 3, tenantCrashBudget: 6, crashWindowMs: 60_000, unservedMs: 500 } },
  });
  for (const tenant of ['shop', 'mallory']) owner[tenant] = (await (await f.call('/v1/tenants', { body: { id: tenant } })).json()).apiKey;
  const put = async (tenant: string, body: Record<string, unknown>) => expect((await f.call(`/v1/policies/${body.id}`, { method: 'PUT', body, key: owner[tenant] })).status).toBe(200);
  const compile = async (tenant: string, id: string, shadow = false) =>
    expect((await (await f.call(`/v1/policies/${id}/compile${shadow ? '?shadow=true' : ''}`, { method: 'POST', key: owner[tenant] })).json()).status).toBe('promoted');
  await put('shop', shopPolicy);
  await compile('shop', 'm2w');
  // Live: crashing costs nothing under failMode open (SANDBOX_CRASHED allows) — the quarantine must still deny.
  await put('mallory', { id: 'live', version: '1', requests: 'x', mode: 'compiled', failMode: 'open', program: crashingProgram(), examples: crashExamples });
  await compile('mallory', 'live');
  // Logged: version 1 never crashes; 30 checks are recorded; its shadow crashes on every one of them.
  await put('mallory', { id: 'logged', version: '1', requests: 'x', mode: 'compiled', decisionLog: true, program: "return { deny: input === 'deny me', reasons: ['v1'] };", examples: crashExamples });
  await compile('mallory', 'logged');
  for (let i = 0; i < 30; i++) {
    const decision = await (await f.call('/v1/checks', { body: { policy: 'logged', input: `boom ${i}` }, key: owner.mallory })).json();
    expect(decision.decision).toBe('allow');
  }
  await put('mallory', { id: 'logged', version: '2', enforcement: 'shadow', requests: 'x', mode: 'compiled', decisionLog: true, program: crashingProgram(), examples: crashExamples });
  await compile('mallory', 'logged', true);
  await waitFor(async () => (await f.call('/readyz', { key: null })).status === 200, 60_000, 'the gateway ready');
});
afterAll(async () => {
  await f?.close();
});

const check = async (tenant: string, body: Record<string, unknown>, wait = 10_000) => (await f.call(`/v1/checks?wait=${wait}`, { body, key: owner[tenant] })).json();

/** The value of one series of /metrics (0 when absent). */
function metric(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('one tenant killing sandbox workers, live and by replay, while another keeps checking', () => {
  it("shop's Mind2Web-SC checks are all decided, p99 under a second; mallory is quarantined (fail-closed) after its budget; the pool and /readyz stay up", { timeout: 300_000 }, async () => {
    let attacking = true;
    const shop: Array<{ ms: number; decision: string; status: string; want: string }> = [];
    const readiness: number[] = [];
    // Shop: two clients checking in a loop until mallory is done, and at least 40 checks.
    const client = async (offset: number) => {
      for (let i = offset; attacking || shop.length < 40; i += 2) {
        const task = SHOP_TASKS[i % SHOP_TASKS.length]!;
        const started = performance.now();
        const d = await check('shop', { policy: 'm2w', input: task.input, output: 'ELEMENT: A\nACTION: CLICK\nVALUE: None', context: task.context });
        shop.push({ ms: performance.now() - started, decision: d.decision, status: d.status, want: task.decision });
        if (i % 5 === 0) readiness.push((await f.call('/readyz', { key: null })).status);
      }
    };
    const clients = [client(0), client(1)];

    // Mallory, live: a check that kills a worker, again and again.
    const live: Array<{ decision: string; code: string | undefined; message: string | undefined }> = [];
    const liveLoop = (async () => {
      for (let i = 0; i < 10; i++) {
        // Its runs wait for the pool to be whole again after each death it caused: give them time.
        const d = await check('mallory', { policy: 'live', input: `boom ${i}` }, 60_000);
        live.push({ decision: d.decision, code: d.error?.code, message: d.error?.message });
      }
    })();
    // Mallory, by replay: its 30 logged checks against the shadow that crashes on each.
    const started = await f.call('/v1/policies/logged/replays', { body: { version: 'shadow' }, key: owner.mallory });
    expect(started.status).toBe(202);
    const { id } = await started.json();
    const replay = await waitFor(
      async () => {
        const record = await (await f.call(`/v1/replays/${id}`, { key: owner.mallory })).json();
        return record.state === 'running' ? null : record;
      },
      240_000,
      'the replay',
    );
    await liveLoop;
    attacking = false;
    await Promise.all(clients);

    // Mallory: each worker death is its own (SANDBOX_CRASHED, allowed by failMode open) until the
    // version's budget (3) is spent; then SANDBOX_QUARANTINED, denied whatever the failMode.
    const crashedLive = live.filter((d) => d.code === 'SANDBOX_CRASHED');
    expect(crashedLive.length).toBeGreaterThanOrEqual(1);
    expect(crashedLive.length).toBeLessThanOrEqual(3);
    expect(crashedLive.every((d) => d.decision === 'allow')).toBe(true);
    const quarantinedLive = live.filter((d) => d.code === 'SANDBOX_QUARANTINED');
    // Between its deaths, mallory's runs wait for the pool to be whole again; one that waits past
    // the queue timeout (10 s) ends as a timeout of its own guard code (its failMode decides).
    const waitedOut = live.filter((d) => d.code === 'GUARD_CODE_FAILED' && /no sandbox worker was free within/.test(d.message ?? ''));
    expect(quarantinedLive.length + waitedOut.length).toBe(live.length - crashedLive.length);
    expect(quarantinedLive.every((d) => d.decision === 'deny')).toBe(true);
    // The last ones are quarantined: once it begins, nothing of that version reaches a worker.
    expect(live.at(-1)?.code).toBe('SANDBOX_QUARANTINED');
    // The replay went through the same executors and the same budget: every replayed check erred
    // (crashed, quarantined, or timed out waiting for the pool to be whole between its deaths).
    expect(replay).toMatchObject({ state: 'done', progress: { read: 30, submitted: 30, decided: 30 } });
    expect(replay.diff.changes['newly erroring']).toBe(30);

    // Shop: every check decided by its program, correctly, none guard_error, p99 under a second.
    expect(shop.filter((d) => d.status !== 'ok')).toEqual([]);
    expect(shop.filter((d) => d.decision !== d.want)).toEqual([]);
    const sorted = shop.map((d) => d.ms).sort((a, b) => a - b);
    const p99 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;
    console.log(`shop: ${shop.length} checks, p50 ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, max ${sorted.at(-1)!.toFixed(0)} ms`);
    expect(p99).toBeLessThan(1000);
    expect(readiness.every((status) => status === 200)).toBe(true);

    // /metrics: the deaths (no more than the tenant's budget), the quarantines, shop's waits.
    // The executor reports every second: wait for the report that covers all of the above.
    const text = await waitFor(
      async () => {
        const scraped = await (await f.call('/metrics')).text();
        const covered =
          metric(scraped, 'guardagent_sandbox_wait_seconds_count{tenant="shop"}') >= shop.length &&
          metric(scraped, 'guardagent_sandbox_quarantined_runs_total') >= quarantinedLive.length;
        return covered ? scraped : null;
      },
      15_000,
      "the executor's pool report",
    );
    const died = metric(text, 'guardagent_sandbox_worker_restarts_total{reason="died"}');
    expect(died).toBeGreaterThanOrEqual(2);
    expect(died).toBeLessThanOrEqual(6);
    expect(metric(text, 'guardagent_sandbox_quarantines_total{tenant="mallory",scope="version"}')).toBeGreaterThanOrEqual(1);
    expect(
      metric(text, 'guardagent_sandbox_quarantined{tenant="mallory",scope="version"}') + metric(text, 'guardagent_sandbox_quarantined{tenant="mallory",scope="tenant"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(metric(text, 'guardagent_sandbox_wait_seconds_count{tenant="shop"}')).toBeGreaterThanOrEqual(shop.length);
    expect(metric(text, 'guardagent_sandbox_wait_seconds_bucket{tenant="shop",le="+Inf"}')).toBe(metric(text, 'guardagent_sandbox_wait_seconds_count{tenant="shop"}'));
    expect(metric(text, 'guardagent_sandbox_workers{state="ready"}')).toBe(2);
    expect(metric(text, 'guardagent_sandbox_unserved_seconds')).toBe(0);
    expect(text).not.toMatch(/guardagent_sandbox_\w+\{[^}]*version=/);
  });
});

/** This process's children (the executor's sandbox workers run in it), from /proc. */
function childPids(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('/readyz and a pool that cannot serve', () => {
  it('is not ready while an executor has had no ready sandbox worker past its bound, and ready again once one is warm', async () => {
    const before = await (await f.call('/readyz', { key: null })).json();
    expect(before).toMatchObject({ ready: true, sandbox: { pools: 1, unserving: [] } });
    // Every worker dies at once, and the ones started to replace them are held before they are
    // warm (SIGSTOP: a machine too loaded to start them), for as long as it takes.
    const old = new Set(childPids());
    const held = new Set<number>();
    let holding = true;
    const hold = (async () => {
      while (holding) {
        for (const pid of childPids()) {
          if (old.has(pid) || held.has(pid)) continue;
          process.kill(pid, 'SIGSTOP');
          held.add(pid);
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    for (const pid of old) process.kill(pid, 'SIGKILL');
    const down = await waitFor(
      async () => {
        const response = await f.call('/readyz', { key: null });
        return response.status === 503 ? response.json() : null;
      },
      30_000,
      '/readyz to say the pool cannot serve',
    );
    expect(down).toMatchObject({ ready: false, redis: 'ok', missing: [], sandbox: { pools: 1 } });
    expect(down.sandbox.unserving).toHaveLength(1);
    const text = await (await f.call('/metrics')).text();
    expect(metric(text, 'guardagent_sandbox_unserved_seconds')).toBeGreaterThan(0.5);
    holding = false;
    await hold;
    for (const pid of held) process.kill(pid, 'SIGCONT');
    await waitFor(async () => (await f.call('/readyz', { key: null })).status === 200, 60_000, '/readyz ready again');
  });
});
