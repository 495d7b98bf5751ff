/**
 * The limits of one guard run: the executor's defaults, what the policy asks for, and a cap.
 * The cap (`maxMs`, derived from the queue lock, see runtime.ts) bounds what any policy may ask:
 * the executor's event loop is free during guard runs (they run in worker processes), so BullMQ
 * keeps renewing the job's lock, but a run longer than the lock would still let a stalled-job
 * check hand the job to another executor if renewals were ever late.
 */
export function guardRunLimits(
  defaults: { cpuMs: number; wallMs: number; memoryMb: number; maxMs: number },
  asked: { cpuMs?: number; wallMs?: number; memoryMb?: number } | undefined,
): { cpuMs: number; wallMs: number; memoryMb: number } {
  const cpuMs = Math.min(asked?.cpuMs ?? defaults.cpuMs, defaults.maxMs);
  const wallMs = Math.min(asked?.wallMs ?? defaults.wallMs, defaults.maxMs);
  return { cpuMs, wallMs, memoryMb: asked?.memoryMb ?? defaults.memoryMb };
}
