import { randomUUID } from 'node:crypto';
import { QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { CheckTimeoutError, ConfigError, NotFoundError, UnavailableError, ValidationError } from '@guardagent/errors';
import {
  MemoryHeadroom,
  QueueSet,
  RedisOutageLog,
  ReplyListener,
  ResultStore,
  createRedisConnection,
  enqueueCompile,
  isRedisTransientError,
  newPipelineState,
  refuseWhenFull,
  CHECK_CHUNK_JOB,
  MAX_CHUNK_CHECKS,
  chunkJobIdOf,
  newChunkJobId,
  recordCheckChunks,
  waitUntilReady,
  settleShardLayout,
  isReservedTenantId,
  RESERVED_TENANT_IDS,
  type PipelineState,
  type StageJobOf,
} from '@guardagent/queue';
import { keyPrefixFor, type ShardLayout } from '@guardagent/config';
import { PolicyRegistry, ProgramStore, type RegisteredPolicy } from '@guardagent/registry';
import { RedisApprovalStore, compileRails, type ApprovalQuery, type ApproveResult, type RejectResult } from '@guardagent/rails';
import { RedisHeldCalls } from './redis-held-calls';
import { approvalViewOf, type ApprovalDecider, type ApprovalReader, type ApprovalView } from './approval-view';
import {
  CompileResultSchema,
  DecisionSchema,
  FeedbackCaseSchema,
  GuardJobSchema,
  PolicySchema,
  parseOrThrow,
  type CompileResult,
  type Decision,
  type GuardJob,
  type GuardJobInput,
  type PolicyInput,
} from '@guardagent/schemas';
import type { AdmitJobs, CheckOptions, FeedbackInput, GuardTransport } from './guard-transport';
import { LRUCache } from 'lru-cache';
import { bindIdempotencyKey, jobBindingHash } from './idempotency-binding';
import { compileIdFor, jobIdFor } from './job-id';
import { startJobTrace } from './root-trace';
import { DEFAULT_SUBMIT_ATTEMPTS, withSubmitRetries, type SubmitRetryOptions } from './submit-retry';
import { CheckBatcher, DEFAULT_CHUNK_LINGER_MS, DEFAULT_CHUNK_MAX, DEFAULT_CHUNK_MAX_CHARS, splitIntoChunks, type LingerScheduler } from './check-batcher';

export interface QueueTransportOptions {
  redisUrl: string;
  /** Key/queue namespace; must match the workers' GUARDAGENT_PREFIX. */
  prefix?: string;
  /**
   * The deployment's shard count (GUARDAGENT_SHARDS): checked against the count recorded in
   * Redis (ConfigError on a mismatch). Absent: the recorded count (see settleShardLayout).
   */
  shards?: number;
  tenant?: string;
  resultTtlSeconds?: number;
  /** How long a policy id → version lookup is reused (default 1 s). */
  policyCacheMs?: number;
  /** Refuse new jobs (StoreFullError) once Redis uses this share of its maxmemory (default 0.9). */
  refuseAtMemoryRatio?: number;
  /**
   * Tries of a submit's steps when the connection fails under them (a write may have happened
   * with its reply lost); default 4 (DEFAULT_SUBMIT_ATTEMPTS). Safe because the job id is chosen before the first try, so a
   * retry joins the job the first try may have queued.
   */
  submitAttempts?: number;
  /** Told of each lost submit step about to be tried again (for logs and metrics). */
  onSubmitRetry?: (error: unknown, attempt: number) => void;
  /** Checks per queue job at most (micro-batching; default DEFAULT_CHUNK_MAX, at most MAX_CHUNK_CHECKS). */
  chunkMax?: number;
  /** How long a chunk waits for more checks, ms (default 0: until the event loop has run what is queued). */
  chunkLingerMs?: number;
  /**
   * Record which chunk job carries each check (kept as long as completed jobs), so that a reader
   * that knows only the check id (the gateway's GET /v1/checks/:id) can tell a running or failed
   * check from an unknown one. Costs one small key per chunked check; default off.
   */
  locateChecks?: boolean;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** A job's policy: its current version, and the id's shadow version (enforcement: shadow) if any. */
type ResolvedPolicy = RegisteredPolicy & { shadow: RegisteredPolicy | null };


/** The bytes of a job's JSON as it travels and is stored (input, output, context, subject, action). */
function jobBytes(job: PipelineState['job']): number {
  return Buffer.byteLength(JSON.stringify(job));
}
/** After a failed read of a decision (Redis reconnecting), read again this much later, at most MAX_REREADS times. */
const REREAD_DELAY_MS = 250;
const MAX_REREADS = 40;
/** Idempotent re-submits may join a job someone else is waiting on: look for its result at this pace. */
const DUPLICATE_POLL_MS = 250;

/** Submits guard jobs straight onto the BullMQ queues and hears decisions on its own pub/sub channel. */
export class QueueTransport implements GuardTransport, ApprovalReader, ApprovalDecider {
  readonly tenant: string;
  readonly prefix: string;
  private readonly policyCache = new LRUCache<string, { registered: ResolvedPolicy; at: number }>({ max: 10_000 });
  /** Reads of a policy id in flight (see resolvePolicy). */
  private readonly policyLookups = new Map<string, Promise<ResolvedPolicy>>();
  private queueEvents: QueueEvents | null = null;
  private queueEventsConnection: Redis | null = null;
  private readonly closing = new AbortController();
  /** Refuses new jobs while Redis is nearly at maxmemory (they could not be answered). */
  private readonly headroom: MemoryHeadroom;
  /** How a submit step the connection failed under is tried again (see `retried`). */
  private readonly retry: SubmitRetryOptions;
  /** Collects the checks submitted together into chunk jobs. */
  private readonly batcher: CheckBatcher;

  private constructor(
    private readonly redis: Redis,
    private readonly subscriber: Redis,
    private readonly queues: QueueSet,
    private readonly results: ResultStore,
    private readonly policies: PolicyRegistry,
    private readonly programs: ProgramStore,
    private readonly listener: ReplyListener,
    private readonly options: Required<Omit<QueueTransportOptions, 'redisUrl' | 'onSubmitRetry' | 'shards'>> & Pick<QueueTransportOptions, 'redisUrl' | 'onSubmitRetry' | 'shards'>,
    schedule?: LingerScheduler,
  ) {
    this.tenant = options.tenant;
    this.prefix = options.prefix;
    this.headroom = new MemoryHeadroom(redis, { refuseAtRatio: options.refuseAtMemoryRatio });
    this.retry = {
      attempts: options.submitAttempts,
      // A lost connection, or a Redis Cluster moving a slot or promoting a replica under the step.
      isLost: isRedisTransientError,
      stopped: () => this.closing.signal.aborted,
      ...(options.onSubmitRetry ? { onRetry: options.onSubmitRetry } : {}),
    };
    this.batcher = new CheckBatcher({
      maxChunk: Math.max(1, Math.min(options.chunkMax, MAX_CHUNK_CHECKS)),
      lingerMs: options.chunkLingerMs,
      send: (checks) => this.sendChunk(checks),
      ...(schedule ? { schedule } : {}),
    });
  }

  /** `schedule` replaces the micro-batcher's timing (tests). */
  static async connect(options: QueueTransportOptions, schedule?: LingerScheduler): Promise<QueueTransport> {
    const given = {
      prefix: 'guardagent',
      tenant: 'default',
      resultTtlSeconds: 86_400,
      policyCacheMs: 1000,
      refuseAtMemoryRatio: 0.9,
      submitAttempts: DEFAULT_SUBMIT_ATTEMPTS,
      chunkMax: DEFAULT_CHUNK_MAX,
      chunkLingerMs: DEFAULT_CHUNK_LINGER_MS,
      locateChecks: false,
      ...options,
    };
    if (isReservedTenantId(given.tenant)) {
      throw new ConfigError(`tenant '${given.tenant}' is reserved: the deployment's own keys use that segment (${RESERVED_TENANT_IDS.join(', ')})`, { tenant: given.tenant });
    }
    // On a Redis Cluster the prefix is a hash tag, as the workers' (loadConfig) is.
    const resolved = { ...given, prefix: keyPrefixFor(given.prefix, given.redisUrl) };
    const redis = createRedisConnection(resolved.redisUrl, 'producer', 'client');
    const subscriber = createRedisConnection(resolved.redisUrl, 'subscriber', 'client-replies');
    // Errors reach the caller as rejected calls; these listeners only keep ioredis and BullMQ from
    // printing every reconnect attempt of an outage to the console.
    const outage = new RedisOutageLog(null);
    outage.watch(redis);
    outage.watch(subscriber);
    const listener = new ReplyListener(subscriber, resolved.prefix);
    try {
      await Promise.all([waitUntilReady(redis, 10_000, { failFast: true }), waitUntilReady(subscriber, 10_000, { failFast: true })]);
      await listener.start();
    } catch (error) {
      // Without this, ioredis would keep both connections reconnecting for ever.
      redis.disconnect();
      subscriber.disconnect();
      throw new UnavailableError(`Redis is not reachable: ${(error as Error).message}`);
    }
    // Everything of this tenant (its data and the queues its jobs travel on) is under its shard's prefix.
    let layout: ShardLayout;
    try {
      layout = await settleShardLayout(redis, resolved.prefix, resolved.shards);
    } catch (error) {
      await listener.stop().catch(() => undefined);
      redis.disconnect();
      subscriber.disconnect();
      throw error;
    }
    const prefix = layout.prefixOf(resolved.tenant);
    return new QueueTransport(
      redis,
      subscriber,
      new QueueSet(redis, prefix, outage.onError),
      new ResultStore(redis, prefix, resolved.resultTtlSeconds),
      new PolicyRegistry(redis, prefix),
      new ProgramStore(redis, prefix),
      listener,
      { ...resolved, prefix },
      schedule,
    );
  }

  async putPolicy(input: PolicyInput): Promise<{ id: string; version: string; digest: string }> {
    const policy = parseOrThrow(PolicySchema, input, 'policy');
    const registered = await this.policies.put(this.tenant, policy);
    this.policyCache.delete(policy.id);
    this.policyLookups.delete(policy.id);
    return { id: policy.id, version: policy.version, digest: registered.digest };
  }

  async submit(input: GuardJobInput, options: { batchId?: string; admit?: AdmitJobs } = {}): Promise<{ id: string }> {
    const job = parseOrThrow(GuardJobSchema, input, 'guard job');
    const registered = await this.retried(() => this.resolvePolicy(job));
    const id = jobIdFor(this.tenant, job.idempotencyKey);
    await this.retried(() => this.headroom.assertRoom());
    const submittedAt = await this.bindKey(job, id, registered);
    const state = this.newState(id, job, registered, null, options.batchId ?? null, submittedAt);
    await options.admit?.([id], jobBytes(state.job));
    await this.batcher.add(state);
    return { id };
  }

  /**
   * Submit many jobs of one batch in bulk (one round trip per chunk). Invalid jobs are rejected
   * before any is queued. With `replay`, the checks are that replay's (see PipelineState.replayId)
   * and every one is decided by the replay's policy version, whatever the job names.
   */
  async submitMany(inputs: readonly GuardJobInput[], options: { batchId?: string; admit?: AdmitJobs; replay?: { id: string; policy: RegisteredPolicy } } = {}): Promise<{ ids: string[] }> {
    const jobs = inputs.map((input, index) => parseOrThrow(GuardJobSchema, input, 'guard job', `jobs[${index}]`));
    const states: PipelineState[] = [];
    await this.retried(() => this.headroom.assertRoom());
    const replay = options.replay;
    for (const job of jobs) {
      const registered = replay ? { ...replay.policy, shadow: null } : await this.retried(() => this.resolvePolicy(job));
      const id = jobIdFor(this.tenant, job.idempotencyKey);
      const submittedAt = await this.bindKey(job, id, registered);
      states.push(this.newState(id, job, registered, null, options.batchId ?? null, submittedAt, replay?.id ?? null));
    }
    if (options.admit) await options.admit(states.map((state) => state.jobId), states.reduce((sum, state) => sum + jobBytes(state.job), 0));
    // Chunks of known checks: their job ids follow from the checks, so a batch resumed after a
    // crash re-adds an already queued chunk as the same job (BullMQ adds a job id once).
    const chunks = splitIntoChunks(states, this.batcherMax(), DEFAULT_CHUNK_MAX_CHARS).map((checks) => ({ jobId: chunkJobIdOf(checks), checks }));
    await this.retried(() => refuseWhenFull(this.headroom, () => this.queueChunks(chunks)));
    return { ids: states.map((s) => s.jobId) };
  }

  /**
   * Submit a check and wait for its decision. With `replayId` the check is one of a replay's (or a
   * policy test's): its rate limits count in that id's own windows, a held call gets no approval
   * token, and it is not recorded in the decision log, so live callers never feel it.
   */
  async check(input: GuardJobInput, options: CheckOptions & { admit?: AdmitJobs; replayId?: string } = {}): Promise<Decision> {
    const job = parseOrThrow(GuardJobSchema, input, 'guard job');
    const registered = await this.retried(() => this.resolvePolicy(job));
    const id = jobIdFor(this.tenant, job.idempotencyKey);
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    await this.retried(() => this.headroom.assertRoom());
    const submittedAt = await this.bindKey(job, id, registered);
    if (job.idempotencyKey) {
      const existing = await this.retried(() => this.results.getDecision(this.tenant, id));
      if (existing) return existing;
    }
    const state = this.newState(id, job, registered, this.listener.channel, null, submittedAt, options.replayId ?? null);
    await options.admit?.([id], jobBytes(state.job));
    return new Promise<Decision>((resolve, reject) => {
      let settled = false;
      const finish = (error: Error | null, decision?: Decision) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearInterval(poller);
        stopListening();
        if (error) reject(error);
        else resolve(decision as Decision);
      };
      // A read that fails (the connection is still coming back after an outage) is tried again
      // shortly: the job was accepted, so its decision will come, and the deadline read decides.
      let rereads = 0;
      const fetchResult = (): Promise<unknown> =>
        this.results.getDecision(this.tenant, id).then(
          (decision) => decision && finish(null, decision),
          () => {
            if (settled || rereads++ >= MAX_REREADS) return;
            setTimeout(() => void fetchResult(), REREAD_DELAY_MS).unref();
          },
        );
      // An announcement lost while the subscriber reconnected is made up for by a read once the
      // subscription is back (onResync), and by one more read at the deadline.
      const stopListening = this.listener.expect(
        'decision',
        this.tenant,
        id,
        (message) => {
          if (message.decision === undefined) return void fetchResult();
          const parsed = DecisionSchema.safeParse(message.decision);
          if (parsed.success) finish(null, parsed.data);
          else void fetchResult();
        },
        () => void fetchResult(),
      );
      // At the deadline, read the store once more: an announcement missed (say, while the
      // subscriber reconnected) must not turn a stored decision into a timeout.
      const timer = setTimeout(() => {
        this.results.getDecision(this.tenant, id).then(
          (decision) => finish(decision ? null : new CheckTimeoutError(id, timeoutMs), decision ?? undefined),
          () => finish(new CheckTimeoutError(id, timeoutMs)),
        );
      }, timeoutMs);
      // Keyed re-submits may join a job someone else waits on, whose announcement goes to that caller.
      const poller = job.idempotencyKey ? setInterval(() => void fetchResult(), DUPLICATE_POLL_MS) : undefined;
      this.batcher.add(state).catch((error) => finish(error as Error));
    });
  }

  async result(id: string): Promise<Decision | null> {
    return this.results.getDecision(this.tenant, id);
  }

  /** Stored decisions for many ids in one round trip (null where none). */
  async resultsMany(ids: readonly string[]): Promise<Array<Decision | null>> {
    return this.results.getDecisions(this.tenant, ids);
  }

  async feedback(id: string, feedback: FeedbackInput): Promise<{ promoted: boolean }> {
    const decision = await this.results.getDecision(this.tenant, id);
    if (!decision) throw new NotFoundError('check', id);
    if (decision.mode !== 'per-request' && !feedback.job) {
      throw new ValidationError('feedback', [
        { path: 'job', message: `decision ${id} was made by ${decision.layer === 'rails' ? 'the rails' : 'a compiled program'}, which keeps no case: send the job (input, output, ...) with the label` },
      ]);
    }
    const submitted = feedback.job ? parseOrThrow(FeedbackCaseSchema, feedback.job, 'feedback', 'job') : null;
    if (!this.queueEvents) {
      // BullMQ does not close a connection it was handed: close() disconnects this one itself.
      this.queueEventsConnection = createRedisConnection(this.options.redisUrl, 'worker', 'client-events');
      this.queueEventsConnection.on('error', () => undefined); // a failure rejects the wait below
      this.queueEvents = new QueueEvents('memory', { connection: this.queueEventsConnection, prefix: this.prefix });
      this.queueEvents.on('error', () => undefined);
    }
    await this.queueEvents.waitUntilReady();
    const added = await this.queues.queue('memory').add(
      'feedback',
      {
        tenant: this.tenant,
        policyId: decision.policy.id,
        jobId: id,
        correctLabel: feedback.correctLabel,
        ...(feedback.note ? { note: feedback.note } : {}),
        ...(submitted ? { case: { ...submitted, decision: decision.decision, status: decision.status, reasons: decision.reasons } } : {}),
      },
      { jobId: `feedback__${id}__${randomUUID().slice(0, 8)}`, attempts: 1 },
    );
    // close() ends the wait at once rather than leaving the caller hanging for 30 s.
    const closed = new Promise<never>((_resolve, reject) => {
      this.closing.signal.addEventListener('abort', () => reject(new UnavailableError('QueueTransport closed before the feedback was recorded')), { once: true });
    });
    closed.catch(() => undefined);
    const outcome = (await Promise.race([added.waitUntilFinished(this.queueEvents, 30_000), closed])) as { promoted: boolean };
    return { promoted: Boolean(outcome?.promoted) };
  }

  async compile(policyOrId: PolicyInput | string, options: CheckOptions = {}): Promise<CompileResult> {
    const registered =
      typeof policyOrId === 'string'
        ? await this.policies.get(this.tenant, policyOrId)
        : await this.policies.put(this.tenant, parseOrThrow(PolicySchema, policyOrId, 'policy'));
    const { policy, digest, programDigest } = registered;
    const id = compileIdFor(programDigest);
    // Rails only: nothing for an LLM to write or the sandbox to verify. The rails were compiled
    // when the policy was stored (a mistake there was refused), so say so instead of starting a
    // compile that could only end LLM_NOT_CONFIGURED or write a program nothing asked for.
    if (!policy.requests?.trim() && !policy.program && policy.rails) {
      const rules = compileRails(policy.rails).ruleCount;
      return {
        id,
        policy: { id: policy.id, version: policy.version, digest, programDigest },
        status: 'rails-only',
        message: `policy '${policy.id}' has no guard requests and no program: its ${rules} rail rule${rules === 1 ? '' : 's'} (checked when it was stored) decide every check, with no LLM and no program to compile`,
        report: null,
        code: null,
        plan: null,
        attempts: 0,
        debugRounds: 0,
        usage: { calls: 0, promptTokens: 0, completionTokens: 0 },
        timings: {},
        traceId: '',
        createdAt: new Date().toISOString(),
      };
    }
    const timeoutMs = options.timeoutMs ?? 10 * 60_000;
    const root = startJobTrace('guardagent.compile', { 'guardagent.policy.id': policy.id, 'guardagent.job.id': id });
    const state = newPipelineState({
      jobId: id,
      tenant: this.tenant,
      purpose: 'compile',
      policy: { id: policy.id, version: policy.version, digest, programDigest },
      job: { input: '', output: '', context: {} },
      replyTo: this.listener.channel,
      trace: root.carrier,
      submittedAt: Date.now(),
    });
    root.end();
    return new Promise<CompileResult>((resolve, reject) => {
      const stop = this.listener.expect('compile', this.tenant, id, () => {
        // Parsing inside the chain: a missing or malformed result rejects this promise instead of
        // escaping as an unhandled rejection (which would take a gateway down).
        this.results
          .getCompileResult(this.tenant, id)
          .then((raw) => CompileResultSchema.parse(raw))
          .then(
            (result) => {
              clearTimeout(timer);
              stop();
              resolve(result);
            },
            (error: unknown) => {
              clearTimeout(timer);
              stop();
              reject(error instanceof Error ? error : new Error(String(error)));
            },
          );
      });
      const timer = setTimeout(() => {
        stop();
        reject(new CheckTimeoutError(id, timeoutMs));
      }, timeoutMs);
      enqueueCompile(this.queues, state, Boolean(policy.program)).catch((error) => {
        clearTimeout(timer);
        stop();
        reject(error);
      });
    });
  }

  /**
   * Approve a pending tool call: the token from its `pending` decision. The agent then repeats the
   * identical call with `context.approvalToken`, which the rails turn into one allow.
   */
  async approve(tokenOrId: string, approver: string, options: { reason?: string } = {}): Promise<ApproveResult> {
    return this.approvals().approve(tokenOrId, approver, { tenant: this.tenant, ...options });
  }

  /** Reject a held call (its token or id) with a reason its agent's model will read; an approval not used yet is withdrawn. */
  async reject(tokenOrId: string, approver: string, options: { reason?: string } = {}): Promise<RejectResult> {
    return this.approvals().reject(tokenOrId, approver, { tenant: this.tenant, ...options });
  }

  /** One held call of this tenant (by its token or id), or null when unknown. */
  async approval(tokenOrId: string): Promise<ApprovalView | null> {
    const record = await this.approvals().get(tokenOrId, { tenant: this.tenant });
    return record ? approvalViewOf(record, Date.now()) : null;
  }

  /** This tenant's held calls, oldest first, a page at a time (see GET /v1/approvals). */
  async listApprovals(query: ApprovalQuery = {}): Promise<{ approvals: ApprovalView[]; next: string | null }> {
    const page = await this.approvals().list(this.tenant, query);
    const now = Date.now();
    return { approvals: page.approvals.map((record) => approvalViewOf(record, now)), next: page.next };
  }

  /** This tenant's held calls in its Redis: give it to guardTool and the adapters so every process and reconnect agrees on them. */
  heldCalls(): RedisHeldCalls {
    return new RedisHeldCalls({ redis: this.redis, prefix: this.prefix, tenant: this.tenant });
  }

  private approvals(): RedisApprovalStore {
    return new RedisApprovalStore({ redis: this.redis, prefix: this.prefix });
  }

  /** The promoted program for a policy id's current version, if any. */
  async promotedProgram(policyId: string) {
    const registered = await this.policies.get(this.tenant, policyId);
    return this.programs.getPromoted(this.tenant, registered.programDigest);
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.listener.stop();
    await this.queueEvents?.close();
    this.queueEventsConnection?.disconnect();
    await this.queues.close();
    this.redis.disconnect();
    this.subscriber.disconnect();
  }

  /** The policy a job names (its current version), with the id's shadow version if it has one. */
  private async resolvePolicy(job: GuardJob): Promise<ResolvedPolicy> {
    if (typeof job.policy !== 'string') return { ...(await this.policies.storeSnapshot(this.tenant, job.policy)), shadow: null };
    const id = job.policy;
    const cached = this.policyCache.get(id);
    if (cached && Date.now() - cached.at < this.options.policyCacheMs) return cached.registered;
    // One read per id at a time: when the cached entry expires under a burst, the checks in
    // flight share one read (and one parse) instead of each sending its own.
    let lookup = this.policyLookups.get(id);
    if (!lookup) {
      lookup = Promise.all([this.policies.get(this.tenant, id), this.policies.getShadow(this.tenant, id)]).then(([current, shadow]) => {
        const registered = { ...current, shadow };
        // Not when the policy was put meanwhile (forgetPolicy): this read may predate the put.
        if (this.policyLookups.get(id) === lookup) this.policyCache.set(id, { registered, at: Date.now() });
        return registered;
      });
      const settle = () => {
        if (this.policyLookups.get(id) === lookup) this.policyLookups.delete(id);
      };
      lookup.then(settle, settle);
      this.policyLookups.set(id, lookup);
    }
    return lookup;
  }

  private newState(id: string, job: GuardJob, registered: ResolvedPolicy, replyTo: string | null, batchId: string | null, submittedAt: number, replayId: string | null = null): PipelineState {
    const root = startJobTrace('guardagent.submit', { 'guardagent.job.id': id, 'guardagent.policy.id': registered.policy.id });
    root.end();
    return newPipelineState({
      jobId: id,
      tenant: this.tenant,
      purpose: 'check',
      policy: {
        id: registered.policy.id,
        version: registered.policy.version,
        digest: registered.digest,
        programDigest: registered.programDigest,
      },
      job: {
        input: job.input,
        output: job.output,
        context: job.context ?? {},
        ...(job.subject ? { subject: job.subject } : {}),
        ...(job.action ? { action: job.action } : {}),
      },
      replyTo,
      batchId,
      trace: root.carrier,
      submittedAt,
      logDecision: registered.policy.decisionLog ?? false,
      shadow: registered.shadow
        ? { id: registered.shadow.policy.id, version: registered.shadow.policy.version, digest: registered.shadow.digest, programDigest: registered.shadow.programDigest }
        : null,
      replayId,
    });
  }

  /**
   * A keyed job is bound to its content: the same key with another job is a conflict, not a replay.
   * Resolves to the job's submit time: a re-submit takes the first submission's, so both runs of
   * the check are the same call to the rails (a rate limit counts it once, a used approval holds).
   */
  private async bindKey(job: GuardJob, id: string, registered: RegisteredPolicy): Promise<number> {
    const now = Date.now();
    if (!job.idempotencyKey) return now;
    const key = job.idempotencyKey;
    // Binding the same key to the same job again is a no-op, so a lost reply is retried.
    return this.retried(() => bindIdempotencyKey(this.redis, this.prefix, {
      tenant: this.tenant,
      jobId: id,
      idempotencyKey: key,
      hash: jobBindingHash(job, registered.digest),
      submittedAt: now,
      ttlSeconds: this.options.resultTtlSeconds,
    }));
  }

  private batcherMax(): number {
    return Math.max(1, Math.min(this.options.chunkMax, MAX_CHUNK_CHECKS));
  }

  /** Queue one chunk from the micro-batcher: a lone check as a `check` job (its id the check's), more as a chunk job. */
  private async sendChunk(checks: PipelineState[]): Promise<void> {
    const jobId = checks.length === 1 ? checks[0].jobId : newChunkJobId(); // fixed before the first try
    await this.retried(() => refuseWhenFull(this.headroom, () => this.queueChunks([{ jobId, checks }])));
  }

  /** Add chunk jobs (a chunk of one as a plain `check` job), recording where each check is if asked to. */
  private async queueChunks(chunks: ReadonlyArray<{ jobId: string; checks: PipelineState[] }>): Promise<void> {
    if (this.options.locateChecks && chunks.some((chunk) => chunk.checks.length > 1)) {
      await recordCheckChunks(this.redis, this.prefix, chunks.filter((chunk) => chunk.checks.length > 1));
    }
    const jobs = chunks.map(
      ({ jobId, checks }): StageJobOf<'executor'> =>
        checks.length === 1 ? { kind: 'check', data: { state: checks[0]! }, jobId: checks[0]!.jobId } : { kind: CHECK_CHUNK_JOB, data: { checks }, jobId },
    );
    const only = jobs.length === 1 ? jobs[0] : undefined;
    if (only?.kind === 'check') await this.queues.add('executor', 'check', only.data, only.jobId);
    else if (only?.kind === CHECK_CHUNK_JOB) await this.queues.add('executor', CHECK_CHUNK_JOB, only.data, only.jobId);
    else await this.queues.addBulk('executor', jobs);
  }

  /**
   * A step of a submit, tried again when the connection failed under it (the command may have run
   * with its reply lost). Only idempotent steps go through here: reads, storing a policy snapshot
   * by digest, binding a key to the same job, and queueing, whose job id (and state, with its
   * submit time) is fixed before the first try; BullMQ adds a job id once. The quota hook
   * (`admit`) is not retried: it counts.
   */
  private retried<T>(fn: () => Promise<T>): Promise<T> {
    return withSubmitRetries(fn, this.retry);
  }
}
