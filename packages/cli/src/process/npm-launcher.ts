import { readFileSync } from 'node:fs';

/** What the launcher search reads of a process; /proc on Linux, injectable for tests. */
export interface ProcessTable {
  parentOf(pid: number): number | null;
  commandOf(pid: number): string;
}

/** Linux's /proc. Elsewhere every lookup answers "unknown", and no launcher is found. */
const procTable: ProcessTable = {
  parentOf(pid) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(fields[1]);
      return Number.isInteger(ppid) && ppid > 0 ? ppid : null;
    } catch {
      return null;
    }
  },
  commandOf(pid) {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    } catch {
      return '';
    }
  },
};

/** How far up to look: npm exec → sh -c → this process (a process npm started further up is not ours to follow). */
const MAX_DEPTH = 2;

/**
 * The `npm exec` / `npx` / `npm run` process that started this one, if npm started it.
 * npm runs a bin through `sh -c`, and neither passes on a SIGKILL: when the operator kills the
 * npm process, this one must notice by itself (see watch-launcher.ts).
 */
export function findNpmLauncher(env: NodeJS.ProcessEnv, pid: number = process.pid, table: ProcessTable = procTable): number | null {
  // npm sets npm_command in the environment of everything it runs.
  if (!env.npm_command) return null;
  let current = pid;
  for (let depth = 0; depth < MAX_DEPTH; depth += 1) {
    const parent = table.parentOf(current);
    if (parent === null || parent <= 1) return null;
    if (isNpmCommand(table.commandOf(parent))) return parent;
    current = parent;
  }
  return null;
}

/** npm names its process "npm exec …"/"npm run …" (process.title), or runs as node …/npm-cli.js. */
function isNpmCommand(command: string): boolean {
  const [first = '', second = ''] = command.split(' ', 2);
  const base = (name: string) => name.slice(name.lastIndexOf('/') + 1);
  if (base(first) === 'npm' || base(first) === 'npx') return true;
  return base(first) === 'node' && (base(second) === 'npm-cli.js' || base(second) === 'npx-cli.js' || base(second) === 'npm' || base(second) === 'npx');
}
