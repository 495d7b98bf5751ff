import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** This thread's time on a CPU so far, ns (Linux: /proc/thread-self/schedstat), or null where it cannot be read. */
function threadCpuNs(): number | null {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
  } catch {
    return null;
  }
}

export interface LoopBlocks {
  /** The longest time this thread's event loop ran no timer, ms (wall clock: includes time the OS ran other processes). */
  longestGapMs: number;
  /** The most CPU time this thread spent inside one such gap, ms: the loop held by this thread's own work. */
  longestBusyMs: number;
  /** monitorEventLoopDelay's largest delay, ms (wall clock, like longestGapMs). */
  delayMaxMs: number;
}

/**
 * A timer-drift probe of this thread's event loop. Every `intervalMs` a timer records the gap
 * since the last one, and how much of it this thread spent on a CPU. On a machine shared with
 * other work the wall-clock gap also counts time the OS gave other processes; the CPU time within
 * a gap does not, so it is what a block by this thread's own code costs (work run inline, a GC).
 */
export function startLoopProbe(intervalMs = 2): { stop(): LoopBlocks } {
  const histogram = monitorEventLoopDelay({ resolution: intervalMs });
  histogram.enable();
  let last = performance.now();
  let lastCpu = threadCpuNs();
  let longestGapMs = 0;
  let longestBusyMs = 0;
  const tick = () => {
    const now = performance.now();
    const cpu = threadCpuNs();
    const gap = now - last;
    longestGapMs = Math.max(longestGapMs, gap);
    longestBusyMs = Math.max(longestBusyMs, cpu !== null && lastCpu !== null ? (cpu - lastCpu) / 1e6 : gap);
    last = now;
    lastCpu = cpu;
  };
  const timer = setInterval(tick, intervalMs);
  return {
    stop() {
      tick();
      clearInterval(timer);
      histogram.disable();
      return { longestGapMs, longestBusyMs, delayMaxMs: histogram.max / 1e6 };
    },
  };
}
