import type { Job } from 'bullmq';
import { PipelineStateSchema, newPipelineState, type PipelineState } from '@guardagent/queue';

/** Rebuild enough of a job's state (id, tenant, policy, reply channel, compile lock) to answer it. */
export function salvageState(job: Job): PipelineState | null {
  return salvageStateOf((job.data as { state?: unknown } | undefined)?.state);
}

/** The same, from one state as it travels (a stage job's, or one check of a chunk job). */
export function salvageStateOf(value: unknown): PipelineState | null {
  const raw = (typeof value === 'object' && value !== null ? value : undefined) as Partial<PipelineState> | undefined;
  const salvage = PipelineStateSchema.pick({ jobId: true, tenant: true, policy: true, submittedAt: true }).safeParse(raw);
  if (!salvage.success) return null;
  return newPipelineState({
    ...salvage.data,
    purpose: raw?.purpose === 'compile' ? 'compile' : 'check',
    // A background compile holds its digest's compile lock: answering it must release it or back off.
    backgroundCompile: raw?.purpose === 'compile' && raw.backgroundCompile === true,
    job: { input: '', output: '', context: {} },
    replyTo: typeof raw?.replyTo === 'string' ? raw.replyTo : null,
    batchId: typeof raw?.batchId === 'string' ? raw.batchId : null,
    trace: {},
    logDecision: raw?.logDecision === true,
    replayId: typeof raw?.replayId === 'string' ? raw.replayId : null,
  });
}
