import { fork, type ChildProcess } from 'node:child_process';
import { ChildMessageSchema, type ChildMessage, type ParentMessage, type ProcessRunRequest } from './messages';
import { SentCode } from './sent-code';

/** One run sent to a worker, as the worker's owner tracks it. */
export interface WorkerRun {
  id: number;
  /** Host calls this run waits on: while > 0 its guard code is parked, not executing. */
  parkedCalls: number;
  /** The worker has started it (see SandboxWorker.queue); until then it waits there behind others. */
  started: boolean;
}

export interface SandboxWorkerOptions {
  entry: string;
  execArgv: string[];
  env: NodeJS.ProcessEnv;
  onMessage: (worker: SandboxWorker, message: ChildMessage) => void;
  /** The process is gone (exit, crash, kill, or an unreadable message that made us kill it). */
  onGone: (worker: SandboxWorker, reason: string) => void;
  /** Start serving at once (default), or as a warm spare. */
  serving?: boolean;
}

/**
 * A sandbox worker process: guard code and its toolbox run there, so a V8 fatal error, a
 * segfault or a runaway toolbox function costs this process, never the executor.
 */
export class SandboxWorker {
  /** Every run sent here and not ended, started or not. */
  readonly runs = new Map<number, WorkerRun>();
  /**
   * Runs sent here and not started, in the order the worker starts them: the next when no started
   * run is executing (each has ended or waits on a host call), as the worker itself does.
   */
  readonly queue: WorkerRun[] = [];
  ready = false;
  gone = false;
  /** Runs are sent here (else it is a warm spare, waiting to take over from a worker that goes). */
  serving: boolean;
  /** Past its memory bound: sent no more runs, killed once the runs it holds have ended. */
  retiring = false;
  /** Why the pool killed it, when it did: a run's deadline (`hung`) or its memory bound (`recycled`). */
  cause?: 'hung' | 'recycled' | 'closed';
  /** Resident memory (bytes) it last reported (with its results, or when ready). */
  rss = 0;
  /** Its warm-up's duration as it reported it (ms). */
  warmMs = 0;
  readonly spawnedAt = Date.now();
  /** The guard code this process holds by number (it starts with none). */
  private readonly sentCode = new SentCode();
  private readonly child: ChildProcess;
  private stderrTail = '';

  constructor(private readonly options: SandboxWorkerOptions) {
    this.serving = options.serving ?? true;
    this.child = fork(options.entry, [], {
      execArgv: options.execArgv,
      env: options.env,
      serialization: 'advanced',
      // Never the executor's stdout: `guardagent mcp` speaks its protocol there.
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-2000);
      process.stderr.write(chunk);
    });
    this.child.on('message', (raw: unknown) => {
      if (this.gone) return;
      const parsed = ChildMessageSchema.safeParse(raw);
      if (!parsed.success) {
        this.kill(`sent an unreadable message (${parsed.error.issues[0]?.message ?? 'invalid'})`);
        return;
      }
      if (parsed.data.t === 'ready') {
        this.ready = true;
        this.warmMs = parsed.data.warmMs ?? 0;
      }
      if (parsed.data.t !== 'host' && parsed.data.rss !== undefined) this.rss = parsed.data.rss;
      options.onMessage(this, parsed.data);
    });
    this.child.on('error', (error) => this.markGone(`process error: ${error.message}`));
    this.child.on('exit', (code, signal) => {
      const how = signal ? `killed by ${signal}` : `exited with code ${code}`;
      const tail = this.stderrTail.trim().split('\n').slice(-3).join(' | ');
      this.markGone(tail ? `${how} (${tail.slice(0, 500)})` : how);
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /**
   * True when nothing waits here to start and every started run waits on a host call: its
   * isolate is idle, so more runs may be sent.
   */
  get idle(): boolean {
    if (this.queue.length > 0) return false;
    for (const run of this.runs.values()) if (run.parkedCalls === 0) return false;
    return true;
  }

  /** A started run that is executing (not waiting on a host call), if any. */
  get executing(): boolean {
    for (const run of this.runs.values()) if (run.started && run.parkedCalls === 0) return true;
    return false;
  }

  /** Send runs in one message; the code goes by number once this process has it. */
  sendRuns(runs: ReadonlyArray<{ id: number; request: ProcessRunRequest }>): void {
    const wire = runs.map(({ id, request }) => {
      const { code, ...rest } = request;
      return { id, request: { ...rest, code: this.sentCode.ref(code) } };
    });
    const forget = this.sentCode.takeForgotten();
    this.send({ t: 'run', runs: wire, ...(forget.length > 0 ? { forget } : {}) });
  }

  send(message: ParentMessage): void {
    if (this.gone) return;
    try {
      this.child.send(message);
    } catch (error) {
      this.kill(`IPC send failed: ${(error as Error).message}`);
    }
  }

  /** SIGKILL: nothing the guard does can delay it. */
  kill(reason: string): void {
    if (this.gone) return;
    this.child.kill('SIGKILL');
    this.markGone(reason);
  }

  private markGone(reason: string): void {
    if (this.gone) return;
    this.gone = true;
    this.options.onGone(this, reason);
  }
}
