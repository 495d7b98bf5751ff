import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Summarise V8 .cpuprofile files (from `npm run bench -- --profile DIR`): self time by function and
 * by package, and inclusive time of the functions that matter for a check.
 * Usage: node --import tsx bench/analyze-profile.ts DIR-or-FILE [top=30]
 */
interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

function packageOf(url: string): string {
  if (!url) return '(native/V8)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1];
  const ws = /\/(packages|services)\/([^/]+)\//.exec(url);
  if (ws) return `@guardagent/${ws[2]}`;
  if (url.startsWith('node:')) return 'node core';
  return url.replace(/^file:\/\//, '').split('/').slice(-2).join('/');
}

function label(frame: CallFrame): string {
  const file = frame.url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, '').replace(/^.*\/work\/main\//, '');
  return `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
}

export function analyze(file: string, top = 30): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);
  let idleUs = 0;
  const bySelf = new Map<string, number>();
  const byPackage = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    const name = node.callFrame.functionName;
    if (name === '(idle)' || name === '(program)' || name === '(garbage collector)') {
      if (name === '(idle)') idleUs += us;
      bySelf.set(name, (bySelf.get(name) ?? 0) + us);
      byPackage.set(name, (byPackage.get(name) ?? 0) + us);
      continue;
    }
    bySelf.set(label(node.callFrame), (bySelf.get(label(node.callFrame)) ?? 0) + us);
    byPackage.set(packageOf(node.callFrame.url), (byPackage.get(packageOf(node.callFrame.url)) ?? 0) + us);
    // Inclusive: each distinct function on the stack once.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const key = label(byId.get(cur)!.callFrame);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + us);
    }
  }
  const busy = totalUs - idleUs;
  const pct = (us: number) => `${((us / busy) * 100).toFixed(1).padStart(5)}%`;
  const list = (m: Map<string, number>, n: number, skip: (k: string) => boolean = () => false) =>
    [...m.entries()]
      .filter(([k]) => !skip(k) && k !== '(idle)')
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, us]) => `${pct(us)}  ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`)
      .join('\n');
  return [
    `# ${file}`,
    `busy ${(busy / 1000).toFixed(0)} ms of ${(totalUs / 1000).toFixed(0)} ms sampled (percentages are of busy time)`,
    '\n## self time by package',
    list(byPackage, 20),
    '\n## self time by function',
    list(bySelf, top),
    '\n## inclusive time by function',
    list(inclusive, top, (k) => k.startsWith('(root)') || k.startsWith('processTicksAndRejections') || k.startsWith('(anonymous)')),
  ].join('\n');
}

const target = process.argv[2];
if (target) {
  const top = Number(process.argv[3] ?? 30);
  const files = statSync(target).isDirectory()
    ? readdirSync(target)
        .filter((f) => f.endsWith('.cpuprofile'))
        .map((f) => join(target, f))
    : [target];
  for (const file of files) process.stdout.write(`${analyze(file, top)}\n\n`);
}
