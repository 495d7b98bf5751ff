import { readFileSync } from 'node:fs';

/** True while `pid` runs: it exists and is not a zombie waiting to be reaped. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    // No /proc (not Linux): signal 0 is all there is to go on.
    return true;
  }
}

/**
 * Call `onGone` once when process `pid` stops running (checked every `intervalMs`). The timer
 * does not keep this process alive. Returns a function that stops watching.
 */
export function watchLauncher(pid: number, onGone: () => void, intervalMs = 500): () => void {
  const timer = setInterval(() => {
    if (isRunning(pid)) return;
    clearInterval(timer);
    onGone();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
