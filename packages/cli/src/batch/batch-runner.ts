import { open, type FileHandle } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Decision, GuardJobInput } from '@guardagent/schemas';
import { BatchInputError } from './batch-input-error';
import { BatchStalledError } from './batch-stalled-error';
import { lineIdempotencyKey } from './batch-key';
import { countDecision, emptyCounts, type BatchCounts } from './batch-summary';
import { decisionLine } from './decision-line';
import type { BatchLine } from './batch-line-schema';
import { parseBatchLine } from './parse-batch-line';
import { prepareOutput } from './prepare-output';
import { assertReadableFile, countNonBlankLines, readLines } from './read-lines';

/** What of the client a batch needs (QueueTransport has it). */
interface BatchClient {
  submitMany(inputs: readonly GuardJobInput[], options: { batchId?: string }): Promise<{ ids: string[] }>;
  resultsMany(ids: readonly string[]): Promise<Array<Decision | null>>;
}

/** What the runner reports progress to (see createProgress). */
export interface BatchProgressSink {
  increment(n: number): void;
  stop(): void;
}

export interface BatchRunOptions {
  client: BatchClient;
  /** A registered policy's id (see ensurePolicyReady). */
  policyId: string;
  /** Idempotency namespace of this batch (see batchKey). */
  key: string;
  inPath: string;
  outPath: string;
  /** Most jobs submitted but not yet decided (default 2000). */
  maxInFlight?: number;
  /** Jobs per submitMany round trip (default 500, at most maxInFlight). */
  chunkSize?: number;
  /** Pause between looks at the result store when nothing new was decided (default 25 ms). */
  pollMs?: number;
  /** Give up when jobs are queued but nothing is decided for this long (default 10 min). */
  idleTimeoutMs?: number;
  /** Called once the number of jobs left to decide is known. */
  progress?: (toDecide: number) => BatchProgressSink;
  /** Stop early (Ctrl-C): stop submitting, write what is decided, return. */
  signal?: AbortSignal;
}

export interface BatchResult {
  counts: BatchCounts;
  elapsedMs: number;
  truncatedBytes: number;
  /** The first bad line; lines before it were processed. */
  inputError: BatchInputError | null;
  interrupted: boolean;
}

interface PendingLine {
  id: string;
  job: GuardJobInput;
}

/**
 * Streams a JSONL file of jobs through the pipeline with bounded memory: lines are read as they
 * are needed, at most `maxInFlight` jobs wait for a decision (their data lives in Redis, the
 * runner keeps only ids), and every decision is appended to --out as soon as it is seen.
 *
 * Decisions are collected by looking the in-flight ids up in the result store (one MGET per
 * look) rather than on a reply channel: that needs no change to how jobs are submitted, works
 * against remote workers, and also finds decisions an earlier (killed) run left in Redis.
 * Memory is O(maxInFlight) plus one Set of line ids (O(number of ids), needed to skip lines
 * already decided and to refuse duplicate ids).
 */
export class BatchRunner {
  private readonly maxInFlight: number;
  private readonly chunkSize: number;
  private readonly pollMs: number;
  private readonly idleTimeoutMs: number;
  private readonly batchId: string;
  /** Job id → line id, in submission order. */
  private readonly inFlight = new Map<string, string>();
  private readonly counts = emptyCounts();
  private waiters: Array<() => void> = [];
  private readingDone = false;
  private failure: Error | null = null;
  private progress: BatchProgressSink | null = null;

  constructor(private readonly options: BatchRunOptions) {
    this.maxInFlight = Math.max(1, options.maxInFlight ?? 2000);
    this.chunkSize = Math.max(1, Math.min(options.chunkSize ?? 500, this.maxInFlight));
    this.pollMs = options.pollMs ?? 25;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 10 * 60_000;
    this.batchId = `cli-${options.key}`;
    options.signal?.addEventListener('abort', () => this.wake(), { once: true });
  }

  async run(): Promise<BatchResult> {
    const { inPath, outPath } = this.options;
    await assertReadableFile(inPath);
    const prepared = await prepareOutput(outPath);
    const lines = await countNonBlankLines(inPath);
    const startedAt = Date.now();
    this.progress = this.options.progress?.(Math.max(0, lines - prepared.decided.size)) ?? null;
    const out = await open(outPath, 'a');
    let inputError: BatchInputError | null = null;
    const collector = this.collect(out).catch((error: Error) => this.fail(error));
    try {
      inputError = await this.submitAll(prepared.decided, prepared.guardErrors);
    } catch (error) {
      this.fail(error as Error);
    } finally {
      this.readingDone = true;
      this.wake();
      await collector;
      await out.close();
      this.progress?.stop();
    }
    if (this.failure) throw this.failure;
    return {
      counts: { ...this.counts },
      elapsedMs: Date.now() - startedAt,
      truncatedBytes: prepared.truncatedBytes,
      inputError,
      interrupted: Boolean(this.options.signal?.aborted),
    };
  }

  /** Read, validate and submit every line; returns the first bad line's error (after submitting the lines before it). */
  private async submitAll(decidedBefore: Set<string>, guardErrorsBefore: Set<string>): Promise<BatchInputError | null> {
    const { inPath, policyId, key, signal } = this.options;
    const seen = new Set<string>();
    let chunk: PendingLine[] = [];
    let inputError: BatchInputError | null = null;
    try {
      for await (const { number, text } of readLines(inPath)) {
        if (this.failure || signal?.aborted) break;
        if (!text.trim()) continue;
        const line = parseBatchLine(text, number, inPath);
        if (seen.has(line.id)) throw new BatchInputError(inPath, number, 'id', `duplicate id '${line.id}': ids must be unique within a batch`);
        seen.add(line.id);
        this.counts.total += 1;
        // Moving the id from one set to the other keeps a duplicate of an already-decided line detectable.
        if (decidedBefore.delete(line.id)) {
          this.counts.skipped += 1;
          if (guardErrorsBefore.has(line.id)) this.counts.skippedGuardErrors += 1;
          continue;
        }
        chunk.push({ id: line.id, job: toJob(line, policyId, key) });
        if (chunk.length >= this.chunkSize) {
          await this.submit(chunk);
          chunk = [];
        }
      }
    } catch (error) {
      if (!(error instanceof BatchInputError)) throw error;
      inputError = error;
    }
    if (chunk.length > 0 && !this.failure && !signal?.aborted) await this.submit(chunk);
    return inputError;
  }

  private async submit(chunk: PendingLine[]): Promise<void> {
    const stopped = () => Boolean(this.failure || this.options.signal?.aborted);
    while (this.inFlight.size + chunk.length > this.maxInFlight && !stopped()) await this.nextWake();
    if (stopped()) return;
    const { ids } = await this.options.client.submitMany(
      chunk.map((p) => p.job),
      { batchId: this.batchId },
    );
    ids.forEach((jobId, index) => {
      this.inFlight.set(jobId, chunk[index]!.id);
    });
    this.wake();
  }

  /** Look the in-flight ids up until every submitted job is decided and written. */
  private async collect(out: FileHandle): Promise<void> {
    let lastProgressAt = Date.now();
    while (!this.failure) {
      if (this.inFlight.size === 0) {
        if (this.readingDone) return;
        await this.nextWake();
        lastProgressAt = Date.now();
        continue;
      }
      const jobIds = [...this.inFlight.keys()];
      const decisions = await this.options.client.resultsMany(jobIds);
      let text = '';
      const done: string[] = [];
      decisions.forEach((decision, index) => {
        if (!decision) return;
        const jobId = jobIds[index]!;
        text += decisionLine(this.inFlight.get(jobId)!, decision);
        countDecision(this.counts, decision);
        done.push(jobId);
      });
      if (done.length > 0) {
        // Written before the jobs leave the window: a job counts as done only once its line is on disk.
        await out.appendFile(text);
        for (const jobId of done) this.inFlight.delete(jobId);
        this.progress?.increment(done.length);
        lastProgressAt = Date.now();
        this.wake();
        if (this.options.signal?.aborted) return;
      } else if (Date.now() - lastProgressAt > this.idleTimeoutMs) {
        throw new BatchStalledError(Date.now() - lastProgressAt, this.inFlight.size);
      }
      if (this.options.signal?.aborted && this.readingDone) return;
      await sleep(this.pollMs);
    }
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.wake();
  }

  private nextWake(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}

function toJob(line: BatchLine, policyId: string, key: string): GuardJobInput {
  return {
    policy: policyId,
    input: line.input,
    output: line.output,
    ...(line.context ? { context: line.context } : {}),
    ...(line.subject ? { subject: line.subject } : {}),
    ...(line.action ? { action: line.action } : {}),
    idempotencyKey: lineIdempotencyKey(key, line.id),
  };
}
