import { availableParallelism } from 'node:os';
import { SandboxQuarantinedError, errorMessage } from '@guardagent/errors';
import { SandboxPoolClosedError } from '../sandbox-pool-closed-error';
import { DEFAULT_LIMITS, type ResolvedLimits, type RunResult, type SandboxLimits } from '../sandbox-types';
import { parseLimits } from '../run-request-schema';
import { MAX_RUNS_PER_MESSAGE, ProcessRunRequestSchema, type ChildMessage, type ProcessRunRequest } from './messages';
import { snapMemoryMb } from './snap-memory';
import { CrashBudget, type CrashBudgetOptions, type Quarantine } from './crash-budget';
import { SandboxWorker, type WorkerRun } from './sandbox-worker';

/**
 * What a host function gets besides its arguments: the run's signal (aborted when the run ends,
 * however it ends, so an LLM call in flight is cancelled) and a place to report the tokens it spent.
 */
export interface HostCallContext {
  signal: AbortSignal;
  addUsage(usage: { promptTokens: number; completionTokens: number }): void;
}

/** Host calls (LLM requests behind toolbox functions) one guard run may make, by default. */
export const DEFAULT_MAX_HOST_CALLS_PER_RUN = 16;

/** A function of the executor's that guard code reaches through its toolbox (e.g. the LLM classifier). */
export type HostFunction = (tenant: string, args: unknown[], context: HostCallContext) => Promise<unknown>;

export interface SandboxProcessPoolOptions {
  /** Module the workers run: it calls `serveSandboxChild`. */
  entry: string;
  /** Node flags of the workers (`--no-node-snapshot` and a TypeScript loader when `entry` is .ts). */
  execArgv: string[];
  /** Worker processes. Default `os.availableParallelism()`: one executor then uses every core. */
  size?: number;
  /** Extra wall-clock time past a run's `wallMs` before its worker is declared hung and killed. Default 1000. */
  graceMs?: number;
  /** Limits of a run that sets none. */
  defaultLimits?: SandboxLimits;
  /** Runs a worker may hold at once, counting those parked on host calls and those waiting to start. Default 8. */
  maxRunsPerWorker?: number;
  /**
   * Runs of one tenant sent to a worker in one message, to start there one after another.
   * Default 8; 1 sends every run alone. See "Runs in one message" below.
   */
  maxRunsPerMessage?: number;
  /**
   * Runs of one tenant executing at once, across the pool. Default `size - 1` (at least 1): a tenant
   * whose checks loop until their deadline can never hold every worker.
   */
  maxActivePerTenant?: number;
  /**
   * How long the pool may finish no run while a run waits for a worker (for example every worker
   * hung, or a killed worker's replacement not yet started) before the waiting run ends as a
   * timeout. Default 10,000. A run waits as long as the pool keeps finishing runs (a loaded
   * machine is slow, not stuck), up to maxQueueWaitMs. Time while no worker of the pool is ready
   * yet (the pool starting, or every worker restarting) does not count.
   */
  queueTimeoutMs?: number;
  /** Longest a run may wait for a worker however the pool progresses (a safety net against a run never getting its turn). Default 12 × queueTimeoutMs (2 minutes). */
  maxQueueWaitMs?: number;
  hostFunctions?: Record<string, HostFunction>;
  /**
   * Host calls one run may make (each may be an LLM request). Past it a call fails inside the
   * guard code. Default 16: one check once made 6,912 LLM requests through a toolbox function.
   */
  maxHostCallsPerRun?: number;
  env?: NodeJS.ProcessEnv;
  /**
   * Warm workers kept ready beside the `size` that serve, to take over at once from a worker that
   * dies, hangs or is recycled (its replacement then warms up as the next spare, while nobody
   * waits for it). Default 1; 0 leaves the pool a worker short until the replacement is warm.
   */
  spares?: number;
  /**
   * Worker deaths a tenant's guards may cause before its runs are refused for a while (see
   * CrashBudget); `false` turns the budget off. Default: 3 per version, 6 per tenant, in 60 s.
   */
  crashBudget?: CrashBudgetOptions | false;
  /**
   * Resident memory (MB) past which a worker is recycled between runs: sent nothing more, killed
   * once its runs have ended, and replaced by the warm spare. Default 768; 0 turns it off. Each
   * run's isolate is bounded on its own by its `memoryMb`.
   */
  maxWorkerRssMb?: number;
  /** The crash budget's clock (ms). Default Date.now. */
  now?: () => number;
  /** Told about every worker that died or was killed, with the reason. */
  onWorkerGone?: (event: { pid: number | undefined; reason: string; culprits: number; bystanders: number }) => void;
  /** Told when a worker is ready (warm): serving, or as a spare; `warmMs` is what its warm-up took. */
  onWorkerReady?: (event: { pid: number | undefined; warmMs: number; serving: boolean }) => void;
  /** Told when a tenant, or one version of its guard, is quarantined. */
  onQuarantine?: (quarantine: Quarantine) => void;
  /** Told when a worker passed its memory bound and is being recycled. */
  onWorkerRecycled?: (event: { pid: number | undefined; rssMb: number; maxRssMb: number }) => void;
}

/** Buckets (ms) of the time runs wait for a worker, per tenant (see SandboxProcessPool.takeWaits). */
export const WAIT_BUCKETS_MS = [1, 5, 25, 100, 500, 1000, 2500, 10_000] as const;

/** How long one tenant's runs waited for a worker: counts per bucket of WAIT_BUCKETS_MS (not cumulative), and the totals. */
export interface TenantWaits {
  buckets: number[];
  count: number;
  sumMs: number;
}

export interface SandboxProcessPoolStats {
  /** Serving places (the pool's size). */
  size: number;
  /** Worker processes, serving or spare, starting or ready. */
  workers: number;
  /** Serving workers that are ready (warm). */
  ready: number;
  /** Spares that are ready (warm). */
  spares: number;
  runs: number;
  crashed: number;
  hung: number;
  retried: number;
  workersStarted: number;
  /** Run messages sent to workers (each carries one or more runs: see maxRunsPerMessage). */
  runMessages: number;
  /** Ready workers that went and were replaced, by why: died (crash, OOM kill), hung (killed at a deadline), recycled (memory bound). */
  restarts: { died: number; hung: number; recycled: number };
  /** Runs refused because their tenant or version was quarantined. */
  quarantinedRuns: number;
  /** Quarantines in force now. */
  quarantines: Quarantine[];
  /** Quarantines started so far, per tenant and scope. */
  quarantineTotals: Array<{ tenant: string; scope: 'tenant' | 'version'; count: number }>;
  /** How long the pool has had no ready serving worker (ms); 0 while it can serve. */
  unservedMs: number;
  /** Resident memory of each live worker (MB), serving ones first. */
  rssMb: number[];
}

interface PendingRun {
  id: number;
  request: ProcessRunRequest;
  limits: ResolvedLimits;
  startedNs: bigint;
  resolve: (result: RunResult) => void;
  /** Already retried once after its worker died under it as a bystander. */
  retried: boolean;
  /** Counted in activeByTenant (dispatched, not yet finished or requeued). */
  active?: boolean;
  /**
   * Ends every host call of the run when the run ends. Made with the first host call: most runs
   * make none, and aborting a controller costs a DOMException.
   */
  hostAbort?: AbortController;
  /** The run has its result (finish ran). */
  ended?: boolean;
  /** Host calls made (the cap counts these, cache hits included). */
  hostCalls: number;
  /** Its wait for a worker was counted (the first dispatch only). */
  waitCounted?: boolean;
  /** What the host calls cost: `calls` counts LLM requests (a call answered from a cache is none). */
  hostUsage: { calls: number; promptTokens: number; completionTokens: number };
  worker?: SandboxWorker;
  state?: WorkerRun;
  timer?: NodeJS.Timeout;
  /** When the deadline timer should fire (performance.now() ms), to tell a late timer from a hung worker. */
  deadlineAt?: number;
  /** The deadline was moved once already because this process, not the worker, had stopped. */
  deadlineMoved?: boolean;
}

/**
 * Runs guard code in a pool of sandbox worker processes (`SandboxPool` inside each).
 *
 * - **Crash containment.** A V8 fatal error or a segfault costs the worker process, never the
 *   executor; the pool starts a new worker when work arrives.
 * - **One deadline for everything.** Each run has a wall-clock deadline (`wallMs` + `graceMs`)
 *   kept here, in the executor, covering guard code and every toolbox function it calls. Past it
 *   the worker is SIGKILLed: the run ends `hung` (or, when it shared a message with runs behind
 *   it, is retried alone first: see below), whatever the worker was doing. A deadline timer
 *   that fires more than `graceMs` late means this process had stopped (frozen, paused, its
 *   event loop blocked), not that the worker hung: the deadline then moves once by that lateness,
 *   and a result already sent is read first.
 * - **Culprits and bystanders.** A worker starts another run only while every run it holds waits
 *   on a host call (its isolate is idle). So when a worker dies, at most one of its runs was
 *   executing. When that run is known (it was the only one that could have been), it ends
 *   `crashed` at once (a poison input is never retried into another crash), and the parked runs,
 *   bystanders, are retried once on another worker. If the culprit cannot be told apart (a run
 *   resumed from a host call while another was running, or runs sent in one message), every run
 *   that could have been executing is retried once, and a run that is under a second crash ends
 *   `crashed`.
 * - **Runs in one message.** A message costs tens of µs at each end whatever it carries, so an
 *   idle worker is sent up to `maxRunsPerMessage` waiting runs of one tenant at once. The worker
 *   starts them one after another, the next when no started run is executing; it sends results
 *   that ended close together in one message, holding one back only while the runs held started
 *   less than RESULTS_HOLD_MS (2 ms) ago. This pool keeps the same account, so a run's deadline
 *   starts within those 2 ms of the run's real start, never while it waits behind another. When
 *   a worker holding a message's runs dies or passes a deadline, which of its runs was executing
 *   is therefore not known: each unanswered run is retried once, elsewhere and alone (a run
 *   already retried is always sent by itself). So a poison input or a hang ends `crashed` or
 *   `hung` on its second worker, alone, and its neighbours are decided on their retry. Only one
 *   tenant's runs share a message: a tenant's slow or hostile guard delays its own checks, never
 *   another tenant's, and a message never gives a tenant another worker (the runs in it start on
 *   the worker its first run holds). What a tenant's own checks may wait: a run waits behind at
 *   most `maxRunsPerMessage - 1` runs of its message (each within its own deadline), and a result
 *   held back waits at most for the end of the run started after it.
 * - **The executor's event loop never waits on guard work**: only messages cross.
 */
export class SandboxProcessPool {
  private readonly size: number;
  private readonly spares: number;
  private readonly maxRssBytes: number;
  private readonly budget: CrashBudget | null;
  private readonly now: () => number;
  private readonly graceMs: number;
  private readonly maxRunsPerWorker: number;
  private readonly maxRunsPerMessage: number;
  private readonly queueTimeoutMs: number;
  private readonly maxQueueWaitMs: number;
  /** When a run last finished (hrtime ns): a waiting run times out only after this long a stall (see queueTimeoutMs). */
  private lastProgressNs = 0n;
  private readonly maxActivePerTenant: number;
  /** Runs dispatched and not finished, per tenant. */
  private readonly activeByTenant = new Map<string, number>();
  private readonly defaultLimits: ResolvedLimits;
  private readonly workers: SandboxWorker[] = [];
  private readonly queue: PendingRun[] = [];
  private readonly byId = new Map<number, PendingRun>();
  private nextId = 1;
  private closed = false;
  private readonly counters = { runs: 0, crashed: 0, hung: 0, retried: 0, workersStarted: 0, runMessages: 0, quarantinedRuns: 0 };
  private readonly restarts = { died: 0, hung: 0, recycled: 0 };
  /** Waits since the last takeWaits(), per tenant. */
  private waits = new Map<string, TenantWaits>();
  /** Since when (performance.now() ms) no serving worker has been ready; null while one is. */
  private unservedSince: number | null = performance.now();
  private pumpScheduled = false;
  /**
   * When the pool last went from no ready worker to one (hrtime ns). A run's queue wait counts from
   * then at the earliest: a pool still starting its workers (slow on a loaded machine) is not
   * "every worker busy", and a worker that cannot start fails the queued runs on its own.
   */
  private servingSinceNs = 0n;

  constructor(private readonly options: SandboxProcessPoolOptions) {
    this.size = Math.max(1, options.size ?? availableParallelism());
    this.spares = Math.max(0, options.spares ?? 1);
    this.maxRssBytes = Math.max(0, options.maxWorkerRssMb ?? 768) * 1024 * 1024;
    this.now = options.now ?? Date.now;
    this.budget = options.crashBudget === false ? null : new CrashBudget(options.crashBudget ?? {}, this.now);
    this.graceMs = options.graceMs ?? 1000;
    this.maxRunsPerWorker = Math.max(1, options.maxRunsPerWorker ?? 8);
    this.maxRunsPerMessage = Math.min(MAX_RUNS_PER_MESSAGE, Math.max(1, options.maxRunsPerMessage ?? 8));
    this.queueTimeoutMs = options.queueTimeoutMs ?? 10_000;
    this.maxQueueWaitMs = options.maxQueueWaitMs ?? this.queueTimeoutMs * 12;
    this.maxActivePerTenant = Math.max(1, options.maxActivePerTenant ?? this.size - 1);
    this.defaultLimits = { ...DEFAULT_LIMITS, ...(options.defaultLimits ?? {}) };
    // Workers start now, not with the first run: starting and warming one takes a second or more.
    for (let i = 0; i < this.size; i++) this.startWorker(true);
    for (let i = 0; i < this.spares; i++) this.startWorker(false);
  }

  /**
   * Run guard code once. Resolves with `ok: false` for every fault of the guard code, including
   * `crashed` and `hung` workers; rejects only for an invalid request or a closed pool.
   */
  run(request: ProcessRunRequest): Promise<RunResult> {
    if (this.closed) return Promise.reject(new SandboxPoolClosedError());
    const parsed = ProcessRunRequestSchema.parse(request);
    const limits: ResolvedLimits = {
      ...this.defaultLimits,
      ...(parsed.limits ? (parseLimits(parsed.limits, 'sandbox limits') as SandboxLimits) : {}),
    };
    // Few memory sizes, so each worker keeps few groups of isolates (one per size).
    limits.memoryMb = snapMemoryMb(limits.memoryMb);
    this.counters.runs++;
    // A quarantined tenant or version is answered at once: no worker is touched, nothing waits.
    const quarantine = this.budget?.quarantineOf(parsed.tenant, parsed.version);
    if (quarantine) {
      this.counters.quarantinedRuns++;
      return Promise.resolve(this.quarantined(quarantine, process.hrtime.bigint()));
    }
    return new Promise<RunResult>((resolve) => {
      const run: PendingRun = {
        id: this.nextId++,
        request: { ...parsed, limits },
        limits,
        startedNs: process.hrtime.bigint(),
        resolve,
        retried: false,
        hostCalls: 0,
        hostUsage: { calls: 0, promptTokens: 0, completionTokens: 0 },
      };
      this.byId.set(run.id, run);
      this.queue.push(run);
      // Runs submitted together (a chunk's checks, in one loop) are sent together.
      this.schedulePump();
    });
  }

  stats(): SandboxProcessPoolStats {
    const live = this.workers.filter((w) => !w.gone);
    return {
      size: this.size,
      workers: live.length,
      ready: live.filter((w) => w.serving && w.ready && !w.retiring).length,
      spares: live.filter((w) => !w.serving && !w.retiring && w.ready).length,
      ...this.counters,
      restarts: { ...this.restarts },
      quarantines: this.budget?.current() ?? [],
      quarantineTotals: this.budget?.totals() ?? [],
      unservedMs: this.unservedSince === null || this.closed ? 0 : performance.now() - this.unservedSince,
      rssMb: [...live].sort((a, b) => Number(b.serving) - Number(a.serving)).map((w) => Math.round(w.rss / 1048576)),
    };
  }

  /** The waits for a worker counted since the last call, per tenant (then forgotten here). */
  takeWaits(): Map<string, TenantWaits> {
    const taken = this.waits;
    this.waits = new Map();
    return taken;
  }

  /** Kill every worker; runs still queued or in flight end with kind 'internal'. */
  async close(): Promise<void> {
    this.closed = true;
    for (const worker of [...this.workers]) {
      worker.cause = 'closed';
      worker.kill('sandbox pool closed');
    }
    for (const run of [...this.queue]) this.finish(run, failure('internal', 'sandbox pool closed before the run started', run));
    this.queue.length = 0;
  }

  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    queueMicrotask(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    // Readiness does not change while runs are dispatched: asked once, when a tenant on probation waits.
    let whole: boolean | undefined;
    const isWhole = () => {
      whole ??= this.whole();
      return whole;
    };
    while (this.queue.length > 0 && !this.closed) {
      // The oldest run whose tenant is under its share of the workers; a tenant on probation (it
      // killed a worker within the crash window) only while the pool is whole.
      const index = this.queue.findIndex(
        (r) => (this.activeByTenant.get(r.request.tenant) ?? 0) < this.maxActivePerTenant && (!this.budget?.onProbation(r.request.tenant) || isWhole()),
      );
      if (index < 0) return;
      const worker = this.pickWorker();
      if (!worker) return;
      this.dispatch(this.takeBatch(index, worker), worker);
    }
  }

  /**
   * The run at `index` and, unless it was retried (then it travels alone), later waiting runs of
   * its tenant that were not retried either, as many as the worker has room for.
   */
  private takeBatch(index: number, worker: SandboxWorker): PendingRun[] {
    const [first] = this.queue.splice(index, 1) as [PendingRun];
    const batch = [first];
    if (first.retried) return batch;
    const room = Math.min(this.maxRunsPerMessage, this.maxRunsPerWorker - worker.runs.size);
    // Looks a bounded way down the queue, so a long queue of other tenants' runs costs little.
    for (let i = index, looked = 0; i < this.queue.length && batch.length < room && looked < room * 4; looked++) {
      const run = this.queue[i]!;
      if (run.request.tenant === first.request.tenant && !run.retried) {
        this.queue.splice(i, 1);
        batch.push(run);
      } else i++;
    }
    return batch;
  }

  /** An idle ready serving worker with room, else none (filling the serving places first if some are empty). */
  private pickWorker(): SandboxWorker | null {
    let best: SandboxWorker | null = null;
    for (const worker of this.workers) {
      if (!worker.serving || worker.retiring || !worker.ready || worker.gone || !worker.idle || worker.runs.size >= this.maxRunsPerWorker) continue;
      if (!best || worker.runs.size < best.runs.size) best = worker;
    }
    if (best) return best;
    // A place left empty by a worker that died before it was ready is filled by the next run
    // that finds no worker, not in a loop.
    if (this.serving() < this.size) this.replenish(true);
    return null;
  }

  /**
   * Every serving place has a ready worker and every spare is ready. A tenant on probation runs
   * only then: each death it causes is taken over by a warm spare, and it cannot cause the next
   * before that spare's replacement is warm, so other tenants never find the pool short.
   */
  private whole(): boolean {
    let ready = 0;
    let spares = 0;
    for (const w of this.workers) {
      if (w.gone || w.retiring || !w.ready) continue;
      if (w.serving) ready++;
      else spares++;
    }
    return ready >= this.size && spares >= this.spares;
  }

  /** Serving workers (ready or starting) that are not being recycled. */
  private serving(): number {
    let count = 0;
    for (const worker of this.workers) if (worker.serving && !worker.retiring && !worker.gone) count++;
    return count;
  }

  /**
   * Fill every serving place, with a spare when there is one (a ready one first: it is warm), and
   * then (when `startNew`) start processes until the spares are complete again.
   */
  private replenish(startNew: boolean): void {
    if (this.closed) return;
    let serving = this.serving();
    while (serving < this.size) {
      const spares = this.workers.filter((w) => !w.serving && !w.retiring && !w.gone);
      const spare = spares.find((w) => w.ready) ?? spares[0];
      if (spare) spare.serving = true;
      else if (startNew) this.startWorker(true);
      else break;
      serving++;
    }
    if (startNew) {
      let spares = this.workers.filter((w) => !w.serving && !w.retiring && !w.gone).length;
      for (; spares < this.spares; spares++) this.startWorker(false);
    }
    this.noteServing();
  }

  /** Keep the account of when the pool last had (or lost) a ready serving worker. */
  private noteServing(): void {
    const canServe = this.workers.some((w) => w.serving && w.ready && !w.retiring && !w.gone);
    if (canServe && this.unservedSince !== null) {
      this.unservedSince = null;
      // A run's queue wait counts from here at the earliest (see servingSinceNs).
      this.servingSinceNs = process.hrtime.bigint();
    } else if (!canServe && this.unservedSince === null) this.unservedSince = performance.now();
  }

  private startWorker(serving: boolean): void {
    this.counters.workersStarted++;
    const worker = new SandboxWorker({
      entry: this.options.entry,
      execArgv: this.options.execArgv,
      env: this.options.env ?? process.env,
      serving,
      onMessage: (w, message) => this.onMessage(w, message),
      onGone: (w, reason) => this.onGone(w, reason),
    });
    this.workers.push(worker);
  }

  /** A worker past its memory bound: no more runs; killed when the ones it holds have ended; the spare takes its place. */
  private retire(worker: SandboxWorker): void {
    worker.retiring = true;
    worker.serving = false;
    this.restarts.recycled++;
    const mb = (bytes: number) => Math.round(bytes / 1048576);
    this.options.onWorkerRecycled?.({ pid: worker.pid, rssMb: mb(worker.rss), maxRssMb: mb(this.maxRssBytes) });
    this.replenish(true);
    this.endRetired(worker);
  }

  private endRetired(worker: SandboxWorker): void {
    if (!worker.retiring || worker.runs.size > 0 || worker.gone) return;
    worker.cause = 'recycled';
    worker.kill(`recycled: its memory (${Math.round(worker.rss / 1048576)} MB) passed the bound of ${Math.round(this.maxRssBytes / 1048576)} MB`);
  }

  /**
   * Why a waiting run has waited too long, if it has: the pool finished no run for queueTimeoutMs
   * of its wait, or it waited maxQueueWaitMs in all. Time before the pool could serve does not count.
   */
  private queueTimeout(run: PendingRun, now: bigint): string | null {
    const max = (a: bigint, b: bigint) => (a > b ? a : b);
    const since = max(run.startedNs, this.servingSinceNs);
    if (Number(now - max(since, this.lastProgressNs)) / 1e6 > this.queueTimeoutMs) return `no sandbox worker was free within ${this.queueTimeoutMs} ms`;
    if (Number(now - since) / 1e6 > this.maxQueueWaitMs) return `waited ${this.maxQueueWaitMs} ms for a sandbox worker (the pool was busy all that time)`;
    return null;
  }

  /** Before a finished run counts as progress: end the waiting runs that the stall before it timed out. */
  private expireStalled(now: bigint): void {
    if (this.queue.length === 0 || Number(now - this.lastProgressNs) / 1e6 <= this.queueTimeoutMs) return;
    for (const run of [...this.queue]) {
      const reason = this.queueTimeout(run, now);
      if (!reason) continue;
      this.queue.splice(this.queue.indexOf(run), 1);
      this.finish(run, failure('timeout', reason, run));
    }
  }

  /** Record how long a run waited for its worker (its first dispatch only). */
  private countWait(run: PendingRun, waitedMs: number): void {
    if (run.waitCounted) return;
    run.waitCounted = true;
    const tenant = run.request.tenant;
    let waits = this.waits.get(tenant);
    if (!waits) {
      waits = { buckets: new Array(WAIT_BUCKETS_MS.length + 1).fill(0), count: 0, sumMs: 0 };
      this.waits.set(tenant, waits);
    }
    let bucket = 0;
    while (bucket < WAIT_BUCKETS_MS.length && waitedMs > WAIT_BUCKETS_MS[bucket]!) bucket++;
    waits.buckets[bucket]!++;
    waits.count++;
    waits.sumMs += waitedMs;
  }

  private dispatch(batch: PendingRun[], worker: SandboxWorker): void {
    const sent: PendingRun[] = [];
    for (const run of batch) {
      const timedOut = this.queueTimeout(run, process.hrtime.bigint());
      if (timedOut) {
        // End the run without charging a worker for it.
        this.finish(run, failure('timeout', timedOut, run));
        continue;
      }
      this.countWait(run, Number(process.hrtime.bigint() - run.startedNs) / 1e6);
      const state: WorkerRun = { id: run.id, parkedCalls: 0, started: false };
      run.worker = worker;
      run.state = state;
      worker.runs.set(run.id, state);
      worker.queue.push(state);
      sent.push(run);
    }
    if (sent.length === 0) return;
    worker.sendRuns(sent.map((run) => ({ id: run.id, request: run.request })));
    this.counters.runMessages++;
    this.advance(worker);
  }

  /**
   * Start, in this account, the next run waiting on the worker when none of its started runs is
   * executing: the worker does the same on its side.
   */
  private advance(worker: SandboxWorker): void {
    if (worker.gone || worker.executing) return;
    const state = worker.queue.shift();
    if (!state) return;
    const run = this.byId.get(state.id);
    if (!run) return;
    state.started = true;
    this.activeByTenant.set(run.request.tenant, (this.activeByTenant.get(run.request.tenant) ?? 0) + 1);
    run.active = true;
    // The kill deadline counts from the start: a worker is killed only for time its own runs took.
    const budgetMs = run.limits.wallMs + this.graceMs;
    run.deadlineAt = performance.now() + budgetMs;
    run.deadlineMoved = false;
    run.timer = setTimeout(() => this.onDeadline(run), budgetMs);
  }

  private onMessage(worker: SandboxWorker, message: ChildMessage): void {
    if (message.t === 'ready') {
      this.options.onWorkerReady?.({ pid: worker.pid, warmMs: worker.warmMs, serving: worker.serving });
      this.noteServing();
      this.pump();
      return;
    }
    if (message.t === 'results') {
      const now = process.hrtime.bigint();
      this.expireStalled(now);
      this.lastProgressNs = now;
      for (const { id, result } of message.results) {
        const run = this.byId.get(id);
        if (!run || run.worker !== worker) continue;
        worker.runs.delete(run.id);
        // Results held back together may include runs this account had not started yet.
        if (run.state && !run.state.started) worker.queue.splice(worker.queue.indexOf(run.state), 1);
        this.finish(run, result);
      }
      // Between runs: a worker past its memory bound is sent nothing more and replaced.
      if (this.maxRssBytes > 0 && worker.rss > this.maxRssBytes && !worker.retiring && !this.closed) this.retire(worker);
      this.advance(worker);
      this.endRetired(worker);
      this.pump();
      return;
    }
    const run = this.byId.get(message.runId);
    const state = worker.runs.get(message.runId);
    if (!run || !state?.started) return;
    state.parkedCalls++;
    // The worker's isolate is idle while this run waits: the next run there starts, or another is sent.
    this.advance(worker);
    this.pump();
    void this.callHost(run, message.name, message.args).then(
      (value) => {
        state.parkedCalls--;
        worker.send({ t: 'host-result', callId: message.callId, ok: true, value });
      },
      (error: unknown) => {
        state.parkedCalls--;
        worker.send({ t: 'host-result', callId: message.callId, ok: false, error: errorMessage(error) });
      },
    );
  }

  private async callHost(run: PendingRun, name: string, args: unknown[]): Promise<unknown> {
    const fn = this.options.hostFunctions && Object.hasOwn(this.options.hostFunctions, name) ? this.options.hostFunctions[name] : undefined;
    if (!fn) throw new Error(`no host function '${name}'`);
    const max = this.options.maxHostCallsPerRun ?? DEFAULT_MAX_HOST_CALLS_PER_RUN;
    if (run.hostCalls >= max) throw new Error(`a guard run may make at most ${max} toolbox calls that reach the host (LLM)`);
    if (run.ended) throw new Error('the guard run has ended');
    run.hostCalls++;
    run.hostAbort ??= new AbortController();
    return fn(run.request.tenant, args, {
      signal: run.hostAbort.signal,
      addUsage: (usage) => {
        run.hostUsage.calls++;
        run.hostUsage.promptTokens += usage.promptTokens;
        run.hostUsage.completionTokens += usage.completionTokens;
      },
    });
  }

  private onDeadline(run: PendingRun): void {
    const worker = run.worker;
    if (!worker || !this.byId.has(run.id)) return;
    const lateMs = performance.now() - (run.deadlineAt ?? 0);
    if (lateMs > this.graceMs && !run.deadlineMoved) {
      // This process was not running when the deadline passed, so it cannot tell whether the
      // worker hung: give the run back the time this process lost (a result waiting in the IPC
      // pipe is read before this new timer fires).
      run.deadlineMoved = true;
      const extraMs = Math.min(lateMs, run.limits.wallMs + this.graceMs);
      run.deadlineAt = performance.now() + extraMs;
      run.timer = setTimeout(() => this.onDeadline(run), extraMs);
      return;
    }
    if (worker.queue.length > 0) {
      // The worker may have ended this run and started the next with the result held back (for
      // at most RESULTS_HOLD_MS): which of them hangs is not known, so each is retried once, alone.
      worker.cause = 'hung';
      worker.kill(`run ${run.id} or one started after it passed its deadline`);
      return;
    }
    this.counters.hung++;
    worker.runs.delete(run.id);
    this.finish(
      run,
      failure('hung', `the guard run did not finish within its ${run.limits.wallMs} ms deadline (guard code and toolbox calls together); its sandbox worker was killed`, run),
    );
    this.charge(run);
    worker.cause = 'hung';
    worker.kill(`run ${run.id} passed its deadline`);
  }

  private onGone(worker: SandboxWorker, reason: string): void {
    const index = this.workers.indexOf(worker);
    if (index >= 0) this.workers.splice(index, 1);
    const runs = [...worker.runs.values()].map((s) => this.byId.get(s.id)).filter((r): r is PendingRun => r !== undefined);
    worker.runs.clear();
    worker.queue.length = 0;
    // The runs that may have been executing: the started one, and those sent behind it (the worker
    // may have ended it and started the next with the result held back: see RESULTS_HOLD_MS).
    const executing = runs.filter((r) => !r.state?.started || r.state.parkedCalls === 0);
    // Runs parked on a host call: retried once, elsewhere.
    const bystanders = runs.filter((r) => r.state?.started && r.state.parkedCalls > 0);
    let culprits = 0;
    for (const run of executing) {
      if (executing.length === 1 || run.retried) {
        culprits++;
        this.counters.crashed++;
        this.finish(run, failure(worker.cause === 'hung' ? 'hung' : 'crashed', `the sandbox worker running this guard died (${reason})`, run));
        this.charge(run);
      } else this.retry(run, reason);
    }
    // Runs of one message all belong to one tenant: when the death cannot be pinned on one of
    // them yet, it is still that tenant's (and that version's, when they share it).
    if (culprits === 0 && executing.length > 1 && worker.cause !== 'closed') this.chargeShared(executing);
    for (const run of bystanders) this.retry(run, reason);
    this.options.onWorkerGone?.({ pid: worker.pid, reason, culprits, bystanders: runs.length - culprits });
    if (this.closed || worker.cause === 'closed') return;
    if (worker.retiring) {
      // Recycled: the spare took its place when it began to retire.
      this.noteServing();
      this.pump();
      return;
    }
    if (!worker.ready) {
      // A worker that dies before it is ready would die again: no replacement (the next run that
      // finds no worker starts one), and what waits fails clearly instead of waiting in a loop.
      // A warm spare may still take its place.
      this.replenish(false);
      if (!this.workers.some((w) => !w.gone)) {
        for (const run of this.queue.splice(0)) this.finish(run, failure('internal', `sandbox worker could not start: ${reason}`, run));
      }
      this.pump();
      return;
    }
    if (worker.cause === 'hung') this.restarts.hung++;
    else this.restarts.died++;
    // The warm spare takes over at once; a new spare warms up behind it.
    this.replenish(true);
    this.pump();
  }

  private retry(run: PendingRun, reason: string): void {
    if (run.retried) {
      this.counters.crashed++;
      this.finish(run, failure('crashed', `the sandbox worker died under this run twice (${reason})`, run));
      this.charge(run);
      return;
    }
    this.counters.retried++;
    run.retried = true;
    this.release(run);
    if (run.timer) clearTimeout(run.timer);
    run.worker = undefined;
    run.state = undefined;
    this.queue.unshift(run);
  }

  private finish(run: PendingRun, result: RunResult): void {
    if (!this.byId.delete(run.id)) return;
    if (run.timer) clearTimeout(run.timer);
    this.release(run);
    // Host calls still in flight (an LLM request past the deadline) are cancelled.
    run.ended = true;
    run.hostAbort?.abort();
    run.resolve(run.hostCalls > 0 ? { ...result, hostUsage: { ...run.hostUsage } } : result);
    // The tenant may have runs waiting for its share.
    if (this.queue.length > 0) this.schedulePump();
  }

  /**
   * Charge a worker death to the run it is pinned on. When that uses up its tenant's (or its
   * version's) budget, the quarantine starts now: runs it covers that wait in the queue end at once.
   */
  private charge(run: PendingRun): void {
    if (!this.budget) return;
    const begun = this.budget.charge(run.request.tenant, run.request.version);
    if (begun.length === 0) return;
    for (const quarantine of begun) this.options.onQuarantine?.(quarantine);
    for (const waiting of [...this.queue]) {
      const quarantine = this.budget.quarantineOf(waiting.request.tenant, waiting.request.version);
      if (!quarantine) continue;
      this.queue.splice(this.queue.indexOf(waiting), 1);
      this.counters.quarantinedRuns++;
      this.finish(waiting, this.quarantined(quarantine, waiting.startedNs));
    }
  }

  /** Charge a death that several runs could have caused, to their tenant (and version) if they share it. */
  private chargeShared(runs: PendingRun[]): void {
    const [first] = runs;
    if (!first || runs.some((r) => r.request.tenant !== first.request.tenant)) return;
    const version = runs.every((r) => r.request.version === first.request.version) ? first.request.version : undefined;
    this.charge({ ...first, request: { ...first.request, ...(version === undefined ? { version: undefined } : {}) } });
  }

  private quarantined(quarantine: Quarantine, startedNs: bigint): RunResult {
    const error = new SandboxQuarantinedError({
      tenant: quarantine.tenant,
      scope: quarantine.scope,
      crashes: quarantine.crashes,
      windowMs: this.budget?.windowMs ?? 0,
      untilMs: Date.now() + (quarantine.until - this.now()),
    });
    const durationUs = Math.round(Number(process.hrtime.bigint() - startedNs) / 1000);
    return { ok: false, error: { kind: 'quarantined', message: error.message }, durationUs, toolCalls: 0 };
  }

  private release(run: PendingRun): void {
    if (!run.active) return;
    run.active = false;
    const left = (this.activeByTenant.get(run.request.tenant) ?? 1) - 1;
    if (left > 0) this.activeByTenant.set(run.request.tenant, left);
    else this.activeByTenant.delete(run.request.tenant);
  }
}

function failure(kind: 'crashed' | 'hung' | 'timeout' | 'internal', message: string, run: PendingRun): RunResult {
  const durationUs = Math.round(Number(process.hrtime.bigint() - run.startedNs) / 1000);
  return { ok: false, error: { kind, message }, durationUs, toolCalls: 0 };
}
