import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SandboxProcessPool, snapMemoryMb, type ProcessRunRequest, type RunResult } from '../src/index';
import { DEFAULT_MAX_CODES_PER_WORKER } from '../src/process/sent-code';

const entry = fileURLToPath(new URL('./fixtures/test-sandbox-child.ts', import.meta.url));
const execArgv = ['--no-node-snapshot', '--import', import.meta.resolve('tsx')];
const hostCalls: { tenant: string; args: unknown[] }[] = [];
const gone: string[] = [];

/** The processes this one started (its sandbox workers), from /proc. */
function childPids(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        // Field 4 of /proc/<pid>/stat is the parent pid; field 2 (the name) is in parentheses and may hold spaces.
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

/**
 * The whole host stops for `ms` (a paused VM, a frozen cgroup): every sandbox worker of this
 * process gets SIGSTOP, this process busy-waits, then the workers get SIGCONT.
 */
function freezeHost(ms: number): void {
  const workers = childPids();
  for (const pid of workers) process.kill(pid, 'SIGSTOP');
  const until = performance.now() + ms;
  while (performance.now() < until);
  for (const pid of workers) process.kill(pid, 'SIGCONT');
}

const pool = new SandboxProcessPool({
  entry,
  execArgv,
  size: 2,
  graceMs: 300,
  defaultLimits: { cpuMs: 500, wallMs: 1500 },
  hostFunctions: {
    echo: async (tenant, args) => {
      hostCalls.push({ tenant, args });
      return { from: 'host', tenant, value: args[0] };
    },
  },
  onWorkerGone: (event) => gone.push(event.reason),
  // These tests count deaths and culprits; the crash budget has its own (fair-pool.test.ts).
  crashBudget: false,
});
afterAll(() => pool.close());

function request(code: string, extra: Partial<ProcessRunRequest> = {}): ProcessRunRequest {
  return { code, input: 'in', output: 'out', context: {}, packs: ['core'], tenant: 'acme', reuse: 'program', ...extra };
}

const ok = (result: RunResult) => (result.ok ? result.verdict : null);

describe('SandboxProcessPool: guard code runs in worker processes', () => {
  it('decides, with the toolbox built in the worker for the run\'s tenant and packs', async () => {
    const result = await pool.run(
      request('return { deny: input === "in", reasons: [echoTenant(), packsSeen()] };', { tenant: 'tenant-7', packs: ['core', 'seeact'] }),
    );
    expect(ok(result)).toEqual({ deny: true, reasons: ['tenant-7', 'core,seeact'], details: {} });
  });

  it('reaches host functions from async toolbox calls, scoped to the run\'s tenant', async () => {
    const result = await pool.run(request('const r = await askHost(input); return { deny: false, reasons: [JSON.stringify(r)] };', { tenant: 'globex' }));
    expect(ok(result)?.reasons).toEqual([JSON.stringify({ from: 'host', tenant: 'globex', value: 'in' })]);
    expect(hostCalls.at(-1)).toEqual({ tenant: 'globex', args: ['in'] });
  });

  it('keeps guard faults as ordinary errors (no worker lost)', async () => {
    const before = pool.stats().workersStarted;
    const thrown = await pool.run(request('throw new Error("nope");'));
    expect(thrown.ok).toBe(false);
    expect(!thrown.ok && thrown.error.kind).toBe('thrown');
    const cpu = await pool.run(request('for (;;) {}'));
    expect(!cpu.ok && cpu.error.kind).toBe('timeout');
    expect(pool.stats().workersStarted).toBe(before);
  });

  it('sends a program to a worker once and then by number: more programs than a worker keeps, twice round, each decides as its own', async () => {
    const programs = Array.from({ length: DEFAULT_MAX_CODES_PER_WORKER + 6 }, (_, i) => `return { deny: false, reasons: ["program ${i}"] };`);
    for (let round = 0; round < 2; round++) {
      const reasons = [];
      for (const code of programs) reasons.push(ok(await pool.run(request(code)))?.reasons[0]);
      expect(reasons).toEqual(programs.map((_, i) => `program ${i}`));
    }
  });

  it('snaps isolate memory limits to a few sizes', () => {
    expect([1, 16, 17, 64, 65, 100, 4096, 9999].map(snapMemoryMb)).toEqual([16, 16, 32, 64, 128, 128, 4096, 4096]);
  });
});

describe('SandboxProcessPool: a run that kills or hangs its worker', () => {
  const attacks: [string, string, 'crashed' | 'hung'][] = [
    ['a V8 fatal error (abort)', 'abortWorker();', 'crashed'],
    ['a segmentation fault', 'segfaultWorker();', 'crashed'],
    ['a deadlock at 0 % CPU', 'deadlockWorker();', 'hung'],
    ['host-side toolbox work past the deadline', 'spinHost(60000);', 'hung'],
  ];
  for (const [what, code, kind] of attacks) {
    it(`${what}: ends that run as ${kind}, once, while other runs keep being decided`, async () => {
      const started = pool.stats();
      const attack = pool.run(request(`${code} return { deny: false, reasons: [] };`));
      // Ordinary runs submitted alongside are all decided, before and after the worker dies.
      const ordinary = Array.from({ length: 20 }, (_, i) => pool.run(request(`return { deny: ${i % 2 === 0}, reasons: [] };`, { tenant: 'bystander' })));
      const result = await attack;
      expect(result.ok).toBe(false);
      expect(!result.ok && result.error.kind).toBe(kind);
      const decided = await Promise.all(ordinary);
      expect(decided.filter((r) => !r.ok).map((r) => !r.ok && r.error)).toEqual([]);
      expect(decided.map((r) => (r.ok ? r.verdict.deny : null))).toEqual(Array.from({ length: 20 }, (_, i) => i % 2 === 0));
      const after = pool.stats();
      // Exactly one run was charged and nothing was retried into a second death.
      expect(after[kind] - started[kind]).toBe(1);
      expect(after.workersStarted - started.workersStarted).toBeLessThanOrEqual(1);
      // The pool still serves on a fresh worker.
      expect(ok(await pool.run(request('return { deny: true, reasons: ["still here"] };')))?.reasons).toEqual(['still here']);
    });
  }

  it('a poison input among runs sent in one message: it alone ends crashed, and its neighbours are decided, retried alone at most once', async () => {
    const started = pool.stats();
    // One tenant's runs submitted together travel in one message; the poison waits behind two.
    const runs = Array.from({ length: 8 }, (_, i) =>
      pool.run(request(i === 2 ? 'abortWorker(); return { deny: false, reasons: [] };' : `return { deny: false, reasons: ["run ${i}"] };`, { tenant: 'one-message' })),
    );
    const results = await Promise.all(runs);
    expect(results.map((r) => (r.ok ? r.verdict.reasons[0] : r.error.kind))).toEqual(['run 0', 'run 1', 'crashed', 'run 3', 'run 4', 'run 5', 'run 6', 'run 7']);
    const after = pool.stats();
    expect(after.crashed - started.crashed).toBe(1);
    // The first message held all eight. Which run was executing is not known when the worker dies
    // (results of runs that ended just before may be held back), so the poison and every
    // unanswered neighbour were retried once, each alone in a message: the poison, the five behind
    // it, and up to two before it whose results were held. Alone, the poison is the culprit.
    const retried = after.retried - started.retried;
    expect(retried).toBeGreaterThanOrEqual(6);
    expect(retried).toBeLessThanOrEqual(8);
    expect(after.runMessages - started.runMessages).toBe(1 + retried);
  });

  it('a hang among runs sent in one message: it alone ends hung, alone on its retry, and its neighbours are decided', async () => {
    const started = pool.stats();
    const runs = Array.from({ length: 6 }, (_, i) =>
      pool.run(request(i === 1 ? 'deadlockWorker(); return { deny: false, reasons: [] };' : `return { deny: true, reasons: ["run ${i}"] };`, { tenant: 'one-message-hang' })),
    );
    const results = await Promise.all(runs);
    expect(results.map((r) => (r.ok ? r.verdict.reasons[0] : r.error.kind))).toEqual(['run 0', 'hung', 'run 2', 'run 3', 'run 4', 'run 5']);
    const after = pool.stats();
    expect(after.hung - started.hung).toBe(1);
    expect(after.crashed - started.crashed).toBe(0);
  });

  it('runs sent in one message each get their whole deadline from their own start, and another tenant is served meanwhile', async () => {
    const started = pool.stats();
    // Eight runs of 300 ms each: 2.4 s together, past one run's 1.5 s + 0.3 s deadline.
    const spin = 'const until = Date.now() + 300; while (Date.now() < until) {} return { deny: true, reasons: ["spun"] };';
    const slow = Array.from({ length: 8 }, () => pool.run(request(spin, { tenant: 'slow' })));
    const other = await pool.run(request('return { deny: false, reasons: ["served"] };', { tenant: 'quick' }));
    expect(ok(other)?.reasons).toEqual(['served']);
    const results = await Promise.all(slow);
    expect(results.map((r) => (r.ok ? r.verdict.reasons[0] : r.error.kind))).toEqual(Array.from({ length: 8 }, () => 'spun'));
    const after = pool.stats();
    expect(after.hung - started.hung).toBe(0);
    // The slow tenant's eight went in one message; the quick tenant's run in another.
    expect(after.runMessages - started.runMessages).toBe(2);
  });

  it('a deadline that passed while the whole host was frozen is moved once, not taken as a hung worker; a worker that does hang still ends hung', async () => {
    // Workers ready and idle, so each run below is dispatched (its deadline armed) before the freeze.
    await Promise.all([pool.run(request('return { deny: false, reasons: [] };')), pool.run(request('return { deny: false, reasons: [] };'))]);
    const started = pool.stats();
    // 300 ms of guard work; the host freezes for 2 s, past the run's whole deadline (800 + 300 ms grace).
    const spin = 'const t = Date.now(); while (Date.now() - t < 300) {}';
    const run = pool.run(request(`${spin} return { deny: true, reasons: ["after the freeze"] };`, { limits: { cpuMs: 5000, wallMs: 800 } }));
    freezeHost(2_000);
    expect(ok(await run)?.reasons).toEqual(['after the freeze']);
    expect(pool.stats().hung - started.hung).toBe(0);
    // Moved once, not for ever: a worker that deadlocks is still killed, freeze or not.
    const stuck = pool.run(request('deadlockWorker(); return { deny: false, reasons: [] };', { limits: { cpuMs: 5000, wallMs: 800 } }));
    freezeHost(2_000);
    const result = await stuck;
    expect(!result.ok && result.error.kind).toBe('hung');
    expect(pool.stats().hung - started.hung).toBe(1);
  });

  it('retries a bystander parked on a host call once elsewhere, and ends only the culprit', async () => {
    // The pool calls a host function once it has counted the run as parked on it: that call is the
    // event the test waits for. The first call answers only once the culprit's run has ended (it
    // takes the worker down under the parked run); the retry's call answers at once.
    let hostCalls = 0;
    let parkedOnHost!: () => void;
    const parked = new Promise<void>((resolve) => (parkedOnHost = resolve));
    let culpritEnded!: () => void;
    const culpritDone = new Promise<void>((resolve) => (culpritEnded = resolve));
    const small = new SandboxProcessPool({
      entry,
      execArgv,
      size: 1,
      graceMs: 300,
      defaultLimits: { cpuMs: 500, wallMs: 3000 },
      hostFunctions: {
        echo: async (_tenant, args) => {
          hostCalls += 1;
          if (hostCalls === 1) {
            parkedOnHost();
            await culpritDone;
          }
          return args[0];
        },
      },
    });
    try {
      const bystander = small.run(request('const v = await askHost("patient"); return { deny: false, reasons: [String(v)] };'));
      // Parked on its host call, the first run leaves the worker free to accept the second.
      await parked;
      const culprit = small.run(request('abortWorker(); return { deny: false, reasons: [] };', { tenant: 'attacker' }));
      const c = await culprit;
      culpritEnded();
      const p = await bystander;
      expect(!c.ok && c.error.kind).toBe('crashed');
      expect(ok(p)?.reasons).toEqual(['patient']);
      expect(hostCalls).toBe(2);
      expect(small.stats()).toMatchObject({ crashed: 1, retried: 1 });
    } finally {
      await small.close();
    }
  });

  it('never lets one tenant hold every worker: another tenant is served while it loops', async () => {
    // Two workers, so one tenant may hold one: its second looping run waits, the bystander runs.
    const loops = [0, 1].map(() => pool.run(request('spinHost(1200); return { deny: false, reasons: [] };', { tenant: 'greedy' })));
    const served: string[] = [];
    const others = Array.from({ length: 10 }, (_, i) =>
      pool.run(request('return { deny: false, reasons: [] };', { tenant: 'fair' })).then((r) => {
        served.push(`fair-${i}`);
        return r;
      }),
    );
    const greedyDone = loops.map((p) => p.then(() => served.push('greedy')));
    await Promise.all([...others, ...greedyDone]);
    // All ten ran before either looping run of the greedy tenant finished.
    expect(served.slice(0, 10).every((s) => s.startsWith('fair'))).toBe(true);
  });

  it('fails runs clearly when a worker cannot start, instead of respawning for ever', async () => {
    const broken = new SandboxProcessPool({ entry: '/nonexistent/worker.ts', execArgv, size: 1, defaultLimits: { wallMs: 2000 } });
    try {
      const result = await broken.run(request('return { deny: false, reasons: [] };'));
      expect(!result.ok && result.error.kind).toBe('internal');
      expect(!result.ok && result.error.message).toMatch(/could not start/);
    } finally {
      await broken.close();
    }
  });

  it('logs each worker that went, with the reason', () => {
    expect(gone.some((reason) => /SIGABRT|SIGSEGV|deadline/.test(reason))).toBe(true);
  });
});

describe('SandboxProcessPool: the queue timeout counts time the pool finished no run, not time starting or a slow queue', () => {
  it('a run that waits past the queue timeout behind a busy worker ends as a timeout, naming the wait', async () => {
    const busy = new SandboxProcessPool({ entry, execArgv, size: 1, defaultLimits: { cpuMs: 3000, wallMs: 4000 }, queueTimeoutMs: 200 });
    try {
      expect(ok(await busy.run(request('return { deny: false, reasons: ["ready"] };')))?.reasons).toEqual(['ready']);
      const long = busy.run(request('const end = Date.now() + 1000; while (Date.now() < end) {} return { deny: false, reasons: ["long"] };', { tenant: 'a' }));
      const behind = await busy.run(request('return { deny: true, reasons: ["behind"] };', { tenant: 'b' }));
      expect(behind.ok).toBe(false);
      if (!behind.ok) {
        expect(behind.error.kind).toBe('timeout');
        expect(behind.error.message).toMatch(/no sandbox worker was free within 200 ms/);
      }
      expect(ok(await long)?.reasons).toEqual(['long']);
    } finally {
      await busy.close();
    }
  });

  it('a run behind a pool that keeps finishing runs waits past the queue timeout (a loaded machine is slow, not stuck), up to maxQueueWaitMs', async () => {
    // Generous against a loaded machine: a run takes 60 ms of CPU, and the pool may go 3 s without
    // finishing one before a waiting run times out; 80 runs on one worker keep the last one waiting
    // ~4.8 s or more (longer the slower the machine), past that 3 s.
    const steady = new SandboxProcessPool({ entry, execArgv, size: 1, spares: 0, queueTimeoutMs: 3000, maxQueueWaitMs: 600_000 });
    const capped = new SandboxProcessPool({ entry, execArgv, size: 1, spares: 0, queueTimeoutMs: 3000, maxQueueWaitMs: 1500 });
    const busyRun = (i: number) => request('const end = Date.now() + 60; while (Date.now() < end) {} return { deny: false, reasons: [input] };', { input: `run ${i}` });
    const runs = 80;
    try {
      // Warm both workers first: a run's wait counts from when its pool can serve.
      for (const p of [steady, capped]) expect(ok(await p.run(busyRun(-1)))?.reasons).toEqual(['run -1']);
      const results = await Promise.all(Array.from({ length: runs }, (_, i) => steady.run(busyRun(i))));
      expect(results.map((r) => (r.ok ? r.verdict.reasons[0] : r.error.kind))).toEqual(Array.from({ length: runs }, (_, i) => `run ${i}`));
      // With a 1.5 s cap on the whole wait, the first run is decided and the last ends as a timeout naming the cap.
      const cappedResults = await Promise.all(Array.from({ length: runs }, (_, i) => capped.run(busyRun(i))));
      expect(cappedResults[0]!.ok).toBe(true);
      const last = cappedResults.at(-1)!;
      expect(last.ok).toBe(false);
      if (!last.ok) expect(last.error.message).toMatch(/waited 1500 ms for a sandbox worker/);
    } finally {
      await steady.close();
      await capped.close();
    }
  });

  it('a run queued while the pool\'s workers are still starting waits for them, however long they take', async () => {
    const before = new Set(childPids());
    // No spare: the one worker started is the one held.
    const starting = new SandboxProcessPool({ entry, execArgv, size: 1, spares: 0, queueTimeoutMs: 200 });
    try {
      // Hold the new worker before it is ready (a loaded machine starting Node slowly), for well
      // past the queue timeout, then let it go.
      const mine = childPids().filter((pid) => !before.has(pid));
      expect(mine).toHaveLength(1);
      process.kill(mine[0]!, 'SIGSTOP');
      const result = starting.run(request('return { deny: false, reasons: ["after the start"] };'));
      const until = performance.now() + 800;
      while (performance.now() < until);
      process.kill(mine[0]!, 'SIGCONT');
      expect(ok(await result)?.reasons).toEqual(['after the start']);
    } finally {
      await starting.close();
    }
  });
});

describe('SandboxProcessPool: many tenants\' runs in messages, with poison inputs and hangs mixed in', () => {
  // Its own pool: five worker deaths and their restarts may keep runs queued past the default 10 s.
  const mixed = new SandboxProcessPool({ entry, execArgv, size: 2, graceMs: 300, defaultLimits: { cpuMs: 500, wallMs: 1500 }, queueTimeoutMs: 120_000, crashBudget: false });
  afterAll(() => mixed.close());

  it('every benign run is decided once and correctly; each poison ends crashed and each hang hung, exactly once each', async () => {
    const started = mixed.stats();
    const kinds: Array<'ok' | 'abort' | 'segfault' | 'hang'> = [];
    for (let i = 0; i < 120; i++) kinds.push('ok');
    // Spread over the stream, so they land inside messages of several runs.
    kinds[17] = 'abort';
    kinds[46] = 'segfault';
    kinds[71] = 'hang';
    kinds[98] = 'abort';
    const body = { ok: '', abort: 'abortWorker();', segfault: 'segfaultWorker();', hang: 'deadlockWorker();' };
    const results = await Promise.all(
      kinds.map((kind, i) =>
        mixed.run(request(`${body[kind]} return { deny: ${i % 3 === 0}, reasons: ["run ${i}"] };`, { tenant: `tenant-${i % 3}` })),
      ),
    );
    expect(
      results.map((r, i) => {
        if (kinds[i] === 'ok') return r.ok && r.verdict.reasons[0] === `run ${i}` && r.verdict.deny === (i % 3 === 0);
        return !r.ok && r.error.kind === (kinds[i] === 'hang' ? 'hung' : 'crashed');
      }),
    ).toEqual(kinds.map(() => true));
    const after = mixed.stats();
    expect(after.crashed - started.crashed).toBe(3);
    expect(after.hung - started.hung).toBe(1);
    expect(after.runs - started.runs).toBe(120);
  });
});

describe('SandboxProcessPool: host calls (LLM requests behind toolbox functions) per run', () => {
  const aborted: string[] = [];
  const llmLike = new SandboxProcessPool({
    entry,
    execArgv,
    size: 1,
    graceMs: 300,
    maxHostCallsPerRun: 5,
    defaultLimits: { cpuMs: 500, wallMs: 1500 },
    hostFunctions: {
      echo: async (_tenant, args, call) => {
        if (args[0] !== 'hang') {
          call.addUsage({ promptTokens: 10, completionTokens: 2 });
          return 'label';
        }
        // An LLM request that never answers: only the run's end stops it.
        return new Promise((_resolve, reject) =>
          call.signal.addEventListener('abort', () => {
            aborted.push('hang');
            reject(new Error('cancelled'));
          }),
        );
      },
    },
  });
  afterAll(() => llmLike.close());

  it('are capped per run, and what they spent is in the result', async () => {
    const code =
      'let ok = 0, refused = 0;\n' +
      'for (let i = 0; i < 50; i++) { try { await askHost("q" + i); ok++; } catch (e) { refused++; } }\n' +
      'return { deny: false, reasons: [ok + "/" + refused] };';
    const result = await llmLike.run(request(code));
    expect(ok(result)?.reasons).toEqual(['5/45']);
    expect(result.hostUsage).toEqual({ calls: 5, promptTokens: 50, completionTokens: 10 });
    // The budget is per run: the next run has its own.
    expect(ok(await llmLike.run(request(code)))?.reasons).toEqual(['5/45']);
  });

  it('in flight at the deadline are cancelled', async () => {
    const result = await llmLike.run(request('await askHost("hang"); return { deny: false, reasons: [] };', { limits: { cpuMs: 200, wallMs: 300 } }));
    // The worker ends it at wallMs (timeout), or the pool past its grace (hung): either way the run is over.
    expect(!result.ok && ['timeout', 'hung'].includes(result.error.kind)).toBe(true);
    expect(aborted).toEqual(['hang']);
  });
});
