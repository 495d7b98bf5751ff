import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { CompiledRails } from '../compiled-rails';
import type { RailsJob } from '../rails-job';
import type { OffloadFailure, OffloadResult, RailsOffload, SerializedCheck, WorkerReply, WorkerRequest } from './offload-types';

export interface RailsWorkerPoolOptions {
  /** Worker threads (default 1). */
  size?: number;
  /** Longest a request waits for a free worker (default 10 s), a starting worker included; past it: `busy`. */
  queueWaitMs?: number;
  /** Past a request's own deadline, how long its worker is given before it is terminated (default 1 s). */
  graceMs?: number;
  /** Old-generation heap of each worker, MB (default 512): past it the worker dies and its request is `crashed`. */
  maxOldGenerationMb?: number;
}

interface Request {
  message: WorkerRequest;
  /** The worker is terminated when the request has run this long. */
  killAfterMs: number;
  resolve(result: OffloadResult<unknown>): void;
  queueTimer?: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  running: Request | null;
  runTimer?: NodeJS.Timeout;
  /** The worker is gone (exited, terminated): its slot is dropped. */
  gone: boolean;
  /** Resolves when the worker is ready or gone. */
  settled: Promise<void>;
  settle(): void;
}

/**
 * The worker thread's entry: the built module next to this one when this code is built (dist/),
 * else the TypeScript source through tsx's API (worker threads do not inherit `--import tsx` on Node 20).
 */
function workerEntry(): { entry: string | URL; eval: boolean } {
  if (!import.meta.url.endsWith('.ts')) return { entry: new URL('./rails-worker-main.js', import.meta.url), eval: false };
  const source = new URL('./rails-worker-main.ts', import.meta.url);
  const api = import.meta.resolve('tsx/esm/api');
  return { entry: `import(${JSON.stringify(api)}).then((tsx) => tsx.tsImport(${JSON.stringify(source.href)}, ${JSON.stringify(import.meta.url)}))`, eval: true };
}

/**
 * Worker threads that run the rails' pure work (checkRails, the decision log's redaction) for
 * jobs too heavy for the caller's event loop: the same code, so the same decisions, while the
 * executor's loop keeps renewing job locks and deciding other checks. A request that outlives its
 * deadline has its worker terminated (pre-emptive, unlike the cooperative budget inside checkRails)
 * and answers `timeout`; the caller fails closed. Workers start on first use and after one dies.
 */
export class RailsWorkerPool implements RailsOffload {
  private readonly size: number;
  private readonly queueWaitMs: number;
  private readonly graceMs: number;
  private readonly maxOldGenerationMb: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Request[] = [];
  private readonly keys = new WeakMap<CompiledRails, string>();
  private nextId = 1;
  private closed = false;

  constructor(options: RailsWorkerPoolOptions = {}) {
    this.size = Math.max(1, options.size ?? 1);
    this.queueWaitMs = options.queueWaitMs ?? 10_000;
    this.graceMs = options.graceMs ?? 1000;
    this.maxOldGenerationMb = options.maxOldGenerationMb ?? 512;
  }

  check(compiled: CompiledRails, job: RailsJob, deadlineMs: number): Promise<OffloadResult<SerializedCheck>> {
    let key = this.keys.get(compiled);
    if (!key) {
      key = randomUUID();
      this.keys.set(compiled, key);
    }
    const message: WorkerRequest = { id: this.nextId++, kind: 'check', key, config: compiled.config, job: plainJob(job), deadlineMs };
    return this.submit(message, deadlineMs) as Promise<OffloadResult<SerializedCheck>>;
  }

  redact<T>(value: T, deadlineMs: number): Promise<OffloadResult<T>> {
    return this.submit({ id: this.nextId++, kind: 'redact', value }, deadlineMs) as Promise<OffloadResult<T>>;
  }

  /**
   * Starts the workers now (each loads and warms the detectors on its own thread), so the first
   * heavy job waits for none. Resolves once every worker is ready or gone.
   */
  warm(): Promise<void> {
    while (!this.closed && this.slots.length < this.size) this.start();
    return Promise.all(this.slots.map((slot) => slot.settled)).then(() => undefined);
  }

  /** Threads running now (for tests and metrics). */
  get threads(): number {
    return this.slots.length;
  }

  /** Fails every waiting and running request (`closed`) and terminates the workers. */
  async close(): Promise<void> {
    this.closed = true;
    for (const request of this.queue.splice(0)) this.settle(request, { ok: false, reason: 'closed', message: 'the rails worker pool is closed' });
    const slots = this.slots.splice(0);
    for (const slot of slots) {
      slot.gone = true;
      if (slot.running) this.settle(slot.running, { ok: false, reason: 'closed', message: 'the rails worker pool is closed' });
      clearTimeout(slot.runTimer);
    }
    await Promise.all(slots.map((slot) => slot.worker.terminate().catch(() => undefined)));
  }

  private submit(message: WorkerRequest, deadlineMs: number): Promise<OffloadResult<unknown>> {
    if (this.closed) return Promise.resolve({ ok: false, reason: 'closed', message: 'the rails worker pool is closed' });
    return new Promise((resolve) => {
      const request: Request = { message, killAfterMs: Math.max(0, deadlineMs) + this.graceMs, resolve };
      request.queueTimer = setTimeout(() => {
        const at = this.queue.indexOf(request);
        if (at < 0) return;
        this.queue.splice(at, 1);
        this.settle(request, { ok: false, reason: 'busy', message: `no rails worker was free within ${this.queueWaitMs} ms` });
      }, this.queueWaitMs);
      this.queue.push(request);
      this.dispatch();
    });
  }

  private settle(request: Request, result: OffloadResult<unknown>): void {
    clearTimeout(request.queueTimer);
    request.resolve(result);
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const idle = this.slots.find((slot) => slot.ready && !slot.running && !slot.gone);
      if (idle) {
        this.run(idle, this.queue.shift()!);
        continue;
      }
      const starting = this.slots.filter((slot) => !slot.ready).length;
      if (this.slots.length < this.size && starting < this.queue.length) {
        this.start();
        continue;
      }
      return;
    }
  }

  private run(slot: Slot, request: Request): void {
    clearTimeout(request.queueTimer);
    slot.running = request;
    slot.runTimer = setTimeout(() => {
      // Pre-emptive: terminate() stops the worker's JavaScript wherever it is.
      this.drop(slot, { ok: false, reason: 'timeout', message: `the rails did not finish within ${request.killAfterMs} ms` });
    }, request.killAfterMs);
    slot.worker.postMessage(request.message);
  }

  private start(): void {
    const { entry, eval: isSource } = workerEntry();
    const worker = new Worker(entry, {
      eval: isSource,
      // Not the parent's flags (e.g. --no-node-snapshot, which workers refuse).
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: this.maxOldGenerationMb },
      stdout: false,
      stderr: false,
    });
    worker.unref();
    let settle = () => {};
    const settled = new Promise<void>((resolve) => (settle = resolve));
    const slot: Slot = { worker, ready: false, running: null, gone: false, settled, settle };
    this.slots.push(slot);
    worker.on('message', (reply: WorkerReply) => {
      if ('ready' in reply) {
        slot.ready = true;
        slot.settle();
        this.dispatch();
        return;
      }
      const request = slot.running;
      if (!request || request.message.id !== reply.id) return;
      clearTimeout(slot.runTimer);
      slot.running = null;
      this.settle(request, reply.ok ? { ok: true, value: reply.value } : { ok: false, reason: 'error', message: reply.message });
      this.dispatch();
    });
    worker.on('error', (error) => this.drop(slot, { ok: false, reason: 'crashed', message: `the rails worker died: ${error.message}` }));
    worker.on('exit', (code) => this.drop(slot, { ok: false, reason: 'crashed', message: `the rails worker exited (code ${code})` }));
  }

  /** The slot's worker is gone or being terminated: its request fails, and so do waiting ones if it never got ready. */
  private drop(slot: Slot, failure: OffloadFailure): void {
    if (slot.gone) return;
    slot.gone = true;
    slot.settle();
    clearTimeout(slot.runTimer);
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    void slot.worker.terminate().catch(() => undefined);
    if (slot.running) this.settle(slot.running, failure);
    slot.running = null;
    if (!slot.ready) {
      // It never started: do not start another in a loop; the requests waiting for it fail now.
      for (const request of this.queue.splice(0)) this.settle(request, { ok: false, reason: 'crashed', message: `the rails worker could not start: ${failure.message}` });
      return;
    }
    this.dispatch();
  }
}

/** The parts of a job the rails read, as plain data (a job may carry more). */
function plainJob(job: RailsJob): RailsJob {
  return {
    ...(job.subject !== undefined ? { subject: job.subject } : {}),
    ...(job.action !== undefined ? { action: job.action } : {}),
    ...(job.input !== undefined ? { input: job.input } : {}),
    ...(job.output !== undefined ? { output: job.output } : {}),
    ...(job.context !== undefined ? { context: job.context } : {}),
  };
}
