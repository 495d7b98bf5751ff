import type { Job } from 'bullmq';
import type { ChatMessage, ChatOptions, ChatResult, Llm } from '@guardagent/llm';
import type { DemonstrationStore, RetrievedDemonstration, SeedResult } from '@guardagent/memory';
import {
  CHECK_CHUNK_JOB,
  newPipelineState,
  type DecisionToSave,
  type JobFence,
  type PipelineState,
  type QueueSet,
  type ResultStore,
  type SaveDecisionOutcome,
} from '@guardagent/queue';
import type { PolicyRegistry, ProgramStore, PromotedProgram, RegisteredPolicy, VerificationReport } from '@guardagent/registry';
import type { ProcessRunRequest, RunResult, SandboxProcessPoolStats } from '@guardagent/sandbox/host';
import { PolicySchema, type Demonstration, type LabelledExample, type PolicyInput } from '@guardagent/schemas';
import type { SandboxErrorKind } from '@guardagent/errors';
import type { FinalizeDeps } from '../src/finalize';
import type { Logger } from '@guardagent/telemetry';
import type { PipelineDeps } from '../src/pipeline-deps';
import type { RailsRuntime, RailsVerdict } from '../src/rails-runtime';

/**
 * Hand-written in-memory fakes of what the pipeline's plain functions are given: each records
 * what it was asked, and answers as scripted. No Redis, no BullMQ worker, no sandbox processes.
 */

const key = (tenant: string, id: string) => `${tenant}\u0000${id}`;

/** A parsed policy (defaults applied); guard requests unless `rails` alone are asked for. */
export function policy(input: Partial<PolicyInput> = {}) {
  return PolicySchema.parse({ id: 'refunds', requests: 'Deny refunds over 100.', ...input });
}

export function registered(p: ReturnType<typeof policy>, digest = 'digest-1', programDigest = 'program-1'): RegisteredPolicy {
  return { policy: p, digest, programDigest };
}

/** A new check of `reg`'s policy, as the gateway submits it. */
export function checkState(reg: RegisteredPolicy, overrides: Partial<PipelineState> = {}): PipelineState {
  return {
    ...newPipelineState({
      jobId: 'job-1',
      tenant: 'acme',
      purpose: 'check',
      policy: { id: reg.policy.id, version: reg.policy.version, digest: reg.digest, programDigest: reg.programDigest },
      job: { input: 'refund 50', output: '', context: {} },
      replyTo: 'reply:chan',
      trace: {},
      submittedAt: 1_000,
    }),
    ...overrides,
  };
}

export function policyRef(reg: RegisteredPolicy): PipelineState['policy'] {
  return { id: reg.policy.id, version: reg.policy.version, digest: reg.digest, programDigest: reg.programDigest };
}

/** A clock that moves only when told. */
function fakeClock(start = 1_000) {
  let t = start;
  return {
    now: () => t,
    advance(ms: number) {
      t += ms;
    },
  };
}

class FakeResultStore implements Pick<ResultStore, 'saveDecisions' | 'decided' | 'saveCompileResult'> {
  readonly saveCalls: Array<{ entries: DecisionToSave[]; fence: JobFence | null }> = [];
  readonly stored = new Map<string, DecisionToSave>();
  readonly decidedCalls: Array<Array<{ tenant: string; id: string }>> = [];
  readonly compileResults: Array<{ tenant: string; id: string; result: unknown; replyTo: string | null }> = [];
  /** Answer every save as a lost lock (another worker owns the job). */
  lockLost = false;
  /** Fail every save (Redis down). */
  failSaves: Error | null = null;

  async saveDecisions(entries: readonly DecisionToSave[], fence: JobFence | null = null): Promise<SaveDecisionOutcome[]> {
    this.saveCalls.push({ entries: [...entries], fence });
    if (this.failSaves) throw this.failSaves;
    if (this.lockLost) return entries.map(() => 'lock-lost');
    return entries.map((entry) => {
      const k = key(entry.tenant, entry.decision.id);
      if (this.stored.has(k)) return 'duplicate';
      this.stored.set(k, entry);
      return 'stored';
    });
  }

  async decided(checks: ReadonlyArray<{ tenant: string; id: string }>): Promise<boolean[]> {
    this.decidedCalls.push([...checks]);
    return checks.map((c) => this.stored.has(key(c.tenant, c.id)));
  }

  async saveCompileResult(tenant: string, id: string, result: unknown, replyTo: string | null): Promise<void> {
    this.compileResults.push({ tenant, id, result, replyTo });
  }

  get(tenant: string, id: string): DecisionToSave | undefined {
    return this.stored.get(key(tenant, id));
  }
}

export class FakeQueues implements Pick<QueueSet, 'add'> {
  readonly added: Array<{ stage: string; kind: string; data: unknown; jobId: string }> = [];
  async add(stage: Parameters<QueueSet['add']>[0], kind: string, data: unknown, jobId: string): Promise<void> {
    this.added.push({ stage, kind, data, jobId });
  }
}

class FakePrograms implements Pick<ProgramStore, 'getPromoted' | 'promote' | 'demote' | 'saveReport' | 'unlockCompile' | 'backOffCompile' | 'tryLockCompile'> {
  readonly promoted = new Map<string, PromotedProgram>();
  readonly lookups: string[] = [];
  readonly demoted: string[] = [];
  readonly reports: Array<{ programDigest: string; report: VerificationReport }> = [];
  readonly unlocked: string[] = [];
  readonly backedOff: Array<{ programDigest: string; seconds: number }> = [];
  lockFree = true;

  /** Put a verified program in place (as a compile or a supplied program would). */
  promoteCode(tenant: string, programDigest: string, code: string): void {
    this.promoted.set(key(tenant, programDigest), {
      code,
      plan: null,
      source: 'supplied',
      policyId: 'refunds',
      policyVersion: '1',
      programDigest,
      report: { passed: true, total: 1, passedCount: 1, failing: [], verifiedAt: new Date(0).toISOString() },
      promotedAt: new Date(0).toISOString(),
    });
  }

  async getPromoted(tenant: string, programDigest: string): Promise<PromotedProgram | null> {
    this.lookups.push(programDigest);
    return this.promoted.get(key(tenant, programDigest)) ?? null;
  }

  async promote(tenant: string, program: PromotedProgram): Promise<void> {
    this.promoted.set(key(tenant, program.programDigest), program);
  }

  async demote(tenant: string, programDigest: string): Promise<void> {
    this.demoted.push(programDigest);
    this.promoted.delete(key(tenant, programDigest));
  }

  async saveReport(_tenant: string, programDigest: string, report: VerificationReport): Promise<void> {
    this.reports.push({ programDigest, report });
  }

  async tryLockCompile(_tenant: string, _programDigest: string): Promise<boolean> {
    return this.lockFree;
  }

  async unlockCompile(_tenant: string, programDigest: string): Promise<void> {
    this.unlocked.push(programDigest);
  }

  async backOffCompile(_tenant: string, programDigest: string, seconds: number): Promise<void> {
    this.backedOff.push({ programDigest, seconds });
  }
}

class FakePolicies implements Pick<PolicyRegistry, 'getByDigest'> {
  readonly byDigest = new Map<string, RegisteredPolicy>();
  constructor(...regs: RegisteredPolicy[]) {
    for (const reg of regs) this.byDigest.set(reg.digest, reg);
  }
  async getByDigest(_tenant: string, digest: string): Promise<RegisteredPolicy> {
    const reg = this.byDigest.get(digest);
    if (!reg) throw new Error(`no policy with digest ${digest}`);
    return reg;
  }
}

export const verdict = (deny: boolean, reasons: string[] = []): RunResult => ({ ok: true, verdict: { deny, reasons, details: {} }, durationUs: 10, toolCalls: 0 });
export const failure = (kind: SandboxErrorKind, message = 'boom'): RunResult => ({ ok: false, error: { kind, message }, durationUs: 10, toolCalls: 0 });

/** A sandbox whose runs answer as `script` says (and take `runMs` of the fake clock). */
class FakeSandbox {
  readonly requests: ProcessRunRequest[] = [];
  script: (request: ProcessRunRequest) => RunResult | Promise<RunResult> = () => verdict(false);
  constructor(
    private readonly clock: { advance(ms: number): void },
    private readonly runMs = 0,
  ) {}
  async run(request: ProcessRunRequest): Promise<RunResult> {
    this.requests.push(request);
    this.clock.advance(this.runMs);
    return this.script(request);
  }
  stats(): SandboxProcessPoolStats {
    throw new Error('not used');
  }
  async close(): Promise<void> {}
}

class FakeRails implements RailsRuntime {
  readonly calls: Array<{ tenant: string; digest: string; callId: string; options: unknown }> = [];
  script: (reg: RegisteredPolicy) => RailsVerdict = () => ({ verdict: 'continue', reasons: [], rules: [] });
  async evaluate(tenant: string, reg: RegisteredPolicy, _job: unknown, callId: string, options?: unknown): Promise<RailsVerdict> {
    this.calls.push({ tenant, digest: reg.digest, callId, options });
    return this.script(reg);
  }
}

class FakeLlm implements Llm {
  readonly calls: ChatMessage[][] = [];
  reply: ChatResult = { text: 'ok', model: 'fake', usage: { promptTokens: 3, completionTokens: 4 } };
  async chat(messages: ChatMessage[], _opts?: ChatOptions): Promise<ChatResult> {
    this.calls.push(messages);
    return this.reply;
  }
}

/** A demonstration memory: `retrieve` answers `nearest`; what is seeded, archived and confirmed is recorded. */
export class FakeMemory {
  readonly seeded: Array<{ tenant: string; policyId: string; demos: readonly Demonstration[] }> = [];
  readonly retrievals: Array<{ tenant: string; policyId: string; query: unknown; k: number }> = [];
  readonly archived: Array<{ tenant: string; policyId: string; candidate: unknown }> = [];
  readonly confirmed: Array<{ tenant: string; policyId: string; jobId: string; confirmation: unknown }> = [];
  readonly candidates = new Set<string>();
  feedback: LabelledExample[] = [];
  nearest: RetrievedDemonstration[] = [];

  async seed(tenant: string, policyId: string, demos: readonly Demonstration[]): Promise<SeedResult> {
    this.seeded.push({ tenant, policyId, demos });
    return { ids: [], added: demos.length, updated: 0, unchanged: 0, removed: 0 };
  }
  async retrieve(tenant: string, policyId: string, query: unknown, k: number): Promise<RetrievedDemonstration[]> {
    this.retrievals.push({ tenant, policyId, query, k });
    return this.nearest.slice(0, k);
  }
  async listFeedbackExamples(_tenant: string, _policyId: string): Promise<LabelledExample[]> {
    return this.feedback;
  }
  async archive(tenant: string, policyId: string, candidate: unknown): Promise<void> {
    this.archived.push({ tenant, policyId, candidate });
  }
  async getCandidate(_tenant: string, _policyId: string, jobId: string): Promise<unknown> {
    return this.candidates.has(jobId) ? { jobId } : undefined;
  }
  async confirm(tenant: string, policyId: string, jobId: string, confirmation: { correctLabel: 0 | 1 }): Promise<{ promoted: boolean }> {
    this.confirmed.push({ tenant, policyId, jobId, confirmation });
    return { promoted: confirmation.correctLabel === 1 };
  }
  asStore(): DemonstrationStore {
    return this as unknown as DemonstrationStore;
  }
}

/** A dependency the code under test must not touch: any use of it throws. */
function untouchable<T>(name: string): T {
  return new Proxy({}, { get: (_t, prop) => (prop === 'then' ? undefined : () => Promise.reject(new Error(`${name}.${String(prop)} must not be used`))) }) as T;
}

export interface Fakes {
  deps: PipelineDeps;
  clock: ReturnType<typeof fakeClock>;
  sandbox: FakeSandbox;
  rails: FakeRails;
  policies: FakePolicies;
  programs: FakePrograms;
  llm: FakeLlm;
  compiles: Array<{ tenant: string; digest: string }>;
}

/** PipelineDeps over fakes; `llm: null` when no LLM is configured. */
export function fakeDeps(regs: RegisteredPolicy[], options: { llm?: boolean; memory?: DemonstrationStore; runMs?: number } = {}): Fakes {
  const clock = fakeClock();
  const sandbox = new FakeSandbox(clock, options.runMs ?? 0);
  const rails = new FakeRails();
  const policies = new FakePolicies(...regs);
  const programs = new FakePrograms();
  const llm = new FakeLlm();
  const compiles: Array<{ tenant: string; digest: string }> = [];
  const deps: PipelineDeps = {
    llm: options.llm === false ? null : llm,
    sandbox,
    policies: policies as unknown as PolicyRegistry,
    programs: programs as unknown as ProgramStore,
    memory: options.memory ?? untouchable<DemonstrationStore>('memory'),
    rails,
    requestCompile: async (tenant, digest) => {
      compiles.push({ tenant, digest });
    },
    maxDebugRounds: 2,
    sandboxLimits: { cpuMs: 100, wallMs: 200, memoryMb: 64, maxMs: 1000 },
    now: clock.now,
  };
  return { deps, clock, sandbox, rails, policies, programs, llm, compiles };
}

export function fakeFinalize(overrides: Partial<FinalizeDeps> = {}) {
  const results = new FakeResultStore();
  const queues = new FakeQueues();
  const programs = new FakePrograms();
  const clock = fakeClock(2_000);
  const finalize: FinalizeDeps = {
    results: results as unknown as ResultStore,
    queues: queues as unknown as QueueSet,
    programs: programs as unknown as ProgramStore,
    now: clock.now,
    ...overrides,
  };
  return { finalize, results, queues, programs, clock };
}

export class RecordingLogger implements Logger {
  readonly entries: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
  info(fields: Record<string, unknown>, message: string) {
    this.entries.push({ level: 'info', fields, message });
  }
  warn(fields: Record<string, unknown>, message: string) {
    this.entries.push({ level: 'warn', fields, message });
  }
  error(fields: Record<string, unknown>, message: string) {
    this.entries.push({ level: 'error', fields, message });
  }
}

/** The parts of a BullMQ Job the pipeline reads. */
export function fakeJob(fields: { name?: string; data: unknown; attemptsMade?: number; stalledCounter?: number; attempts?: number; state?: string }): Job {
  return {
    id: 'job-under-test',
    name: fields.name ?? CHECK_CHUNK_JOB,
    data: fields.data,
    attemptsMade: fields.attemptsMade ?? 0,
    stalledCounter: fields.stalledCounter ?? 0,
    opts: { attempts: fields.attempts ?? 3 },
    getState: async () => fields.state ?? 'failed',
  } as unknown as Job;
}
