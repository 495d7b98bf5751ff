import { readFileSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** Linux USER_HZ; 100 on every mainstream kernel config (`getconf CLK_TCK`). */
const CLOCK_TICKS_PER_SECOND = 100;

/** CPU time (user + system, ms) a process has used so far, from /proc/<pid>/stat; null off Linux or when it is gone. */
export function processCpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name (which may contain spaces); utime, stime are fields 14, 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return ((utime + stime) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/**
 * CPU time (ms) of a process's descendants: the live ones (from /proc/<pid>/task/<tid>/children,
 * recursively) and those it has reaped (its cutime + cstime). For an executor, its sandbox worker
 * processes, where guard code and the toolbox run.
 */
export function descendantsCpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    let total = ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS_PER_SECOND;
    for (const child of childPids(pid)) total += (processCpuMs(child) ?? 0) + (descendantsCpuMs(child) ?? 0);
    return total;
  } catch {
    return null;
  }
}

function childPids(pid: number): number[] {
  const children: number[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      for (const child of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ')) if (child.trim()) children.push(Number(child));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return children;
}

/** What a CpuSampler label measures: a process itself, or every process below one. */
export type CpuTarget = number | { descendantsOf: number };

function cpuMsOf(target: CpuTarget): number | null {
  return typeof target === 'number' ? processCpuMs(target) : descendantsCpuMs(target.descendantsOf);
}

export interface CpuSplit {
  /** CPU ms per process label over the measured interval. */
  ms: Record<string, number>;
  /** CPU µs per check per process label. */
  usPerItem: Record<string, number>;
  /** Share of the wall time each process kept a core busy (1.0 = one full core). */
  cores: Record<string, number>;
}

/** Samples CPU of named processes at start and end of an interval. */
export class CpuSampler {
  private readonly start = new Map<string, number>();
  private startedAt = 0;

  constructor(private readonly pids: Record<string, CpuTarget>) {}

  begin(): void {
    this.startedAt = performance.now();
    for (const [label, target] of Object.entries(this.pids)) this.start.set(label, cpuMsOf(target) ?? Number.NaN);
  }

  end(items: number): CpuSplit {
    const wallMs = performance.now() - this.startedAt;
    const split: CpuSplit = { ms: {}, usPerItem: {}, cores: {} };
    for (const [label, target] of Object.entries(this.pids)) {
      const used = (cpuMsOf(target) ?? Number.NaN) - (this.start.get(label) ?? Number.NaN);
      split.ms[label] = Math.round(used);
      split.usPerItem[label] = Math.round((used * 1000) / items);
      split.cores[label] = Math.round((used / wallMs) * 100) / 100;
    }
    return split;
  }
}

/** Total CPU per item over all sampled processes, and the throughput the cores could give at that cost. */
export function cpuCeiling(split: CpuSplit): { cpuUsPerCheck: number; cpuBoundCeiling: number } {
  const total = Object.values(split.usPerItem).reduce((a, b) => a + b, 0);
  return { cpuUsPerCheck: total, cpuBoundCeiling: Math.round((availableParallelism() * 1e6) / total) };
}
