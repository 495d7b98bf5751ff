/**
 * What guard code sees as `context`: the job's context plus the subject and action (a program
 * reads trusted facts from `context.subject.attributes`). Shared by the pipeline and by the
 * in-process benchmark scorer, so both hand a program the same object.
 */
export function guardContext(job: { context?: unknown; subject?: unknown; action?: unknown }): Record<string, unknown> {
  const context = job.context && typeof job.context === 'object' ? (job.context as Record<string, unknown>) : {};
  return { ...context, subject: job.subject ?? null, action: job.action ?? null };
}
