/**
 * Milliseconds of CPU this process spent in `fn` (user and system, all its threads). Tests that
 * bound the work a hostile input causes measure CPU, not wall time: on a loaded machine (CI runs
 * test files side by side) wall time stretches with the queue for a core, while quadratic work
 * would still cost minutes of CPU.
 */
export function cpuMsOf(fn: () => unknown): number {
  const before = process.cpuUsage();
  fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}
