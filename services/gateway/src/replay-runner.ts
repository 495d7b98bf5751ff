import { setTimeout as sleep } from 'node:timers/promises';
import { errorMessage, GuardAgentError } from '@guardagent/errors';
import { DecisionLog, type ResultStore } from '@guardagent/queue';
import { bulkChunkLimit, type CheckAdmission, type QuotaStore } from '@guardagent/quotas';
import type { ProgramStore, RegisteredPolicy } from '@guardagent/registry';
import { ReplayInterruptedError, runReplay, type ReplayOptions } from '@guardagent/replay';
import { ConflictError } from './gateway-errors';
import type { ReplayRecord, ReplayStore } from './replay-store';
import type { TenantTransports } from './tenant-transports';
import type { Logger } from '@guardagent/telemetry';

/** How a gateway runs replays: bounded so that one never crowds out live checks. */
const REPLAY_DEFAULTS = {
  chunkSize: 200,
  maxInFlight: 1000,
  pollMs: 100,
  idleTimeoutMs: 300_000,
  /** How often a running replay's record says the gateway is alive. */
  heartbeatMs: 10_000,
} as const;

/** The stores a tenant's replay reads and writes: those of the tenant's shard. */
interface ReplayShard {
  prefix: string;
  replayStore: ReplayStore;
  results: ResultStore;
  programs: ProgramStore;
  /** The tenant's quotas: a replay's checks are admitted against them like any other (bulk work). */
  quotas: Pick<QuotaStore, 'effective'>;
  admission: Pick<CheckAdmission, 'admitWaiting'>;
}

export interface ReplayRunnerDeps {
  redis: ConstructorParameters<typeof DecisionLog>[0];
  shardOf(tenant: string): ReplayShard;
  transports: TenantTransports;
  logger: Logger;
  options?: Partial<Omit<ReplayOptions, 'tenant' | 'replayId' | 'limit'> & { heartbeatMs: number }>;
}

export interface ReplayStart {
  record: ReplayRecord;
  candidate: RegisteredPolicy;
  sinceMs?: number;
  untilMs?: number;
}

/**
 * Runs replays in the background of the gateway process that accepted them: one at a time per
 * tenant, each through the tenant's transport (so its checks go to the normal executors), its
 * record updated as it goes. A gateway that closes aborts its replays and marks them
 * `interrupted`; one that dies cannot, and its replays read `interrupted` once their records are
 * stale (see ReplayStore).
 */
export class ReplayRunner {
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private closed = false;

  constructor(private readonly deps: ReplayRunnerDeps) {}

  /** Start a replay (its record already validated); ConflictError when the tenant has one running here. */
  async start(tenant: string, start: ReplayStart): Promise<void> {
    if (this.closed) throw new ConflictError('the gateway is shutting down; start the replay again');
    const busy = this.running.get(tenant);
    if (busy) throw new ConflictError(`a replay of this tenant is already running on this gateway; wait for it to finish`, { tenant });
    await this.deps.shardOf(tenant).replayStore.create(tenant, start.record);
    const controller = new AbortController();
    const done = this.run(tenant, start, controller.signal).finally(() => this.running.delete(tenant));
    this.running.set(tenant, { controller, done });
  }

  /** Abort every running replay and wait for them to stop. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.running.values()];
    for (const { controller } of all) controller.abort(new ReplayInterruptedError('the gateway running it closed'));
    await Promise.all(all.map(({ done }) => done));
  }

  private async run(tenant: string, start: ReplayStart, signal: AbortSignal): Promise<void> {
    const { transports, logger } = this.deps;
    const { replayStore: store, results, programs, prefix, quotas, admission } = this.deps.shardOf(tenant);
    const log = new DecisionLog(this.deps.redis, prefix);
    const settings = { ...REPLAY_DEFAULTS, ...this.deps.options };
    let record = start.record;
    const write = async (change: Partial<ReplayRecord>) => {
      record = { ...record, ...change, updatedAt: new Date().toISOString() };
      await store.save(tenant, record);
    };
    const heartbeat = setInterval(() => {
      write({}).catch(() => undefined);
    }, settings.heartbeatMs);
    try {
      // A replay's checks count against the tenant's quotas like its live ones. It waits for room
      // (the bucket refills, checks finish) rather than failing halfway, and as bulk work it leaves
      // half of the burst and of the in-flight room to the tenant's live checks; its chunks and its
      // checks outstanding are sized to fit. It fails (QUOTA_EXCEEDED) only when no room comes
      // within the idle timeout.
      const effective = await quotas.effective(tenant);
      const chunkSize = Math.min(settings.chunkSize, bulkChunkLimit(effective));
      const maxInFlight = Math.max(chunkSize, Math.min(settings.maxInFlight, effective.jobsInFlight - Math.floor(effective.jobsInFlight / 2)));
      const admit = (ids: string[], bytes: number) => admission.admitWaiting(tenant, ids, { bulk: true, bytes, maxWaitMs: settings.idleTimeoutMs, signal });
      const { diff, progress } = await runReplay(
        {
          entries: log.entries(tenant, {
            policyId: record.policyId,
            pageSize: 100,
            ...(start.sinceMs !== undefined ? { sinceMs: start.sinceMs } : {}),
            ...(start.untilMs !== undefined ? { untilMs: start.untilMs } : {}),
          }),
          submit: async (jobs) => {
            await transports.use(tenant, (transport) => transport.submitMany(jobs, { replay: { id: record.id, policy: start.candidate }, admit }));
          },
          decisions: async (ids) =>
            (await results.getDecisions(tenant, ids)).map((decision) =>
              decision ? { decision: decision.decision, status: decision.status, reasons: decision.reasons, rules: decision.rules } : null,
            ),
          onProgress: (progress) => write({ progress }),
          sleep: (ms) => sleep(ms, undefined, { signal }),
          now: Date.now,
          signal,
        },
        { ...settings, chunkSize, maxInFlight, tenant, replayId: record.id, limit: record.limit },
      );
      const finishedAt = new Date().toISOString();
      await write({ state: 'done', progress, diff, finishedAt });
      await programs.attachReplay(tenant, start.candidate.programDigest, {
        id: record.id,
        policyDigest: start.candidate.digest,
        since: record.since,
        until: record.until,
        compared: diff.compared,
        flips: diff.flips,
        changes: diff.changes,
        truncated: progress.truncated,
        finishedAt,
      });
    } catch (thrown) {
      // Aborted: whatever the wait that noticed threw, the reason is the abort's.
      const error: unknown = signal.aborted ? signal.reason : thrown;
      const code = error instanceof GuardAgentError ? error.code : 'REPLAY_FAILED';
      const state = signal.aborted ? 'interrupted' : 'failed';
      logger.warn({ tenant, replay: record.id, code }, `replay ${state}: ${errorMessage(error)}`);
      await write({ state, error: { code, message: errorMessage(error) }, finishedAt: new Date().toISOString() }).catch(() => undefined);
    } finally {
      clearInterval(heartbeat);
    }
  }
}
