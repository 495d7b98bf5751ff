import type { DecisionLogEntry, GuardJobInput } from '@guardagent/schemas';
import { DecisionDiffBuilder, type DecisionDiff, type DecisionSummary, type RecordedDecision } from './decision-diff';
import { replayCheckId, replayJobKey } from './replay-job-key';
import type { ReplayProgress } from './replay-progress';
import { ReplayStalledError } from './replay-stalled-error';

/** What a replay needs from the deployment: all of it injected, so this runs without Redis in tests. */
export interface ReplayDeps {
  /** The recorded entries to re-decide, oldest first (read lazily: the log can be large). */
  entries: AsyncIterable<DecisionLogEntry>;
  /** Queue these checks (one chunk), decided by the replay's policy version. */
  submit(jobs: GuardJobInput[]): Promise<void>;
  /** The replayed decisions of these check ids, null where none has arrived yet. */
  decisions(ids: string[]): Promise<Array<DecisionSummary | null>>;
  /** Called after each chunk is queued and each chunk is decided (persist it for the status page). */
  onProgress(progress: ReplayProgress): Promise<void>;
  sleep(ms: number): Promise<void>;
  now(): number;
  signal?: AbortSignal;
}

export interface ReplayOptions {
  tenant: string;
  /** Names the replay's checks (see replayJobKey). */
  replayId: string;
  /** Most recorded entries taken; more in the range set `truncated`. */
  limit: number;
  /** Checks per queued chunk. */
  chunkSize: number;
  /** Most checks queued and not yet decided. Bounds memory: only their summaries are held. */
  maxInFlight: number;
  /** How often the oldest chunk's decisions are looked for. */
  pollMs: number;
  /** Give up (ReplayStalledError) when no decision arrives for this long. */
  idleTimeoutMs: number;
}

interface Chunk {
  entries: Slim[];
  ids: string[];
  decided: Array<DecisionSummary | undefined>;
}

type Slim = RecordedDecision;

/**
 * Re-decide recorded traffic and diff it against what was recorded: entries are read in order,
 * queued in chunks through the normal executors, and compared as their decisions arrive, with at
 * most `maxInFlight` checks outstanding. Memory holds those checks' summaries, not the log.
 * Throws ReplayStalledError when decisions stop arriving, and the signal's reason when aborted.
 */
export async function runReplay(deps: ReplayDeps, options: ReplayOptions): Promise<{ diff: DecisionDiff; progress: ReplayProgress }> {
  const builder = new DecisionDiffBuilder();
  const progress: ReplayProgress = { read: 0, submitted: 0, decided: 0, truncated: false };
  const queued: Chunk[] = [];
  let inFlight = 0;
  let lastArrivalAt = deps.now();
  let pending: { entries: Slim[]; jobs: GuardJobInput[] } = { entries: [], jobs: [] };

  const submitPending = async () => {
    if (pending.jobs.length === 0) return;
    const { entries, jobs } = pending;
    pending = { entries: [], jobs: [] };
    await deps.submit(jobs);
    queued.push({ entries, ids: entries.map((entry) => replayCheckId(options.tenant, options.replayId, entry.id)), decided: new Array(entries.length) });
    inFlight += entries.length;
    progress.submitted += entries.length;
    lastArrivalAt = Math.max(lastArrivalAt, deps.now());
    await deps.onProgress({ ...progress });
  };

  /** Wait for the oldest chunk's decisions, then count it in the diff. */
  const settleOldest = async () => {
    const chunk = queued[0];
    for (;;) {
      deps.signal?.throwIfAborted();
      const open = chunk.ids.flatMap((_id, index) => (chunk.decided[index] ? [] : [index]));
      const found = await deps.decisions(open.map((index) => chunk.ids[index]));
      let arrived = 0;
      found.forEach((decision, k) => {
        if (decision) {
          chunk.decided[open[k]] = decision;
          arrived++;
        }
      });
      if (arrived > 0) {
        lastArrivalAt = deps.now();
        progress.decided += arrived;
      }
      if (arrived === open.length) break;
      if (deps.now() - lastArrivalAt > options.idleTimeoutMs) throw new ReplayStalledError(deps.now() - lastArrivalAt, inFlight);
      await deps.sleep(options.pollMs);
    }
    queued.shift();
    inFlight -= chunk.entries.length;
    chunk.entries.forEach((entry, index) => {
      builder.add(entry, chunk.decided[index]);
    });
    await deps.onProgress({ ...progress });
  };

  for await (const entry of deps.entries) {
    deps.signal?.throwIfAborted();
    if (progress.read >= options.limit) {
      progress.truncated = true;
      break;
    }
    progress.read++;
    const slim: Slim = { id: entry.id, decision: entry.decision, status: entry.status, reasons: entry.reasons, rules: entry.rules, job: entry.job ? { ...(entry.job.subject ? { subject: entry.job.subject } : {}) } : null };
    if (!entry.job) {
      builder.add(slim, undefined);
      continue;
    }
    const { input, output, context, subject, action } = entry.job;
    pending.entries.push(slim);
    pending.jobs.push({
      idempotencyKey: replayJobKey(options.replayId, entry.id),
      policy: entry.policy.id, input: input as GuardJobInput['input'], output: output as GuardJobInput['output'], context, ...(subject ? { subject } : {}), ...(action ? { action } : {}),
    });
    if (pending.jobs.length >= options.chunkSize) {
      await submitPending();
      while (inFlight >= options.maxInFlight) await settleOldest();
    }
  }
  await submitPending();
  while (queued.length > 0) await settleOldest();
  await deps.onProgress({ ...progress });
  return { diff: builder.result(), progress };
}
