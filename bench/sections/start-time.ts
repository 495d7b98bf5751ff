import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { STAGES } from '@guardagent/queue';
import { REPO_ROOT } from '../lib/children';
import { log } from '../lib/log';
import { quantile, round } from '../lib/stats';

/**
 * Issue 34's start-up targets: `guardagent --version` ≤ 0.3 s; `guardagent mcp` answers
 * `initialize` ≤ 1 s after it starts (Redis up); every service ready ≤ 2 s; each service's RSS
 * at rest. Each is measured for the built JavaScript that deployments run and, in the same run,
 * for the same entry run from its TypeScript sources through tsx (how everything ran before).
 */
interface StartTimeOptions {
  redisUrl: string;
  prefix: string;
  runs: number;
}

type Mode = 'built' | 'source';

const CLI_BIN = join(REPO_ROOT, 'packages/cli/bin/guardagent.mjs');
const EVERYTHING = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

/** The node arguments that start `entry` (a workspace-relative path without extension) built or from source. */
function nodeArgs(mode: Mode, service: string): string[] {
  return mode === 'built'
    ? [join(REPO_ROOT, 'services', service, 'dist', 'main.js')]
    : ['--conditions=@guardagent/source', '--import', 'tsx', join(REPO_ROOT, 'services', service, 'src', 'main.ts')];
}

function cliArgs(mode: Mode): string[] {
  return mode === 'built' ? [CLI_BIN] : ['--conditions=@guardagent/source', '--import', 'tsx', join(REPO_ROOT, 'packages/cli/src/main.ts')];
}

/** Resident memory of a live process, 0 once it has exited (a command like --version). */
function rssKb(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Spawns node with args and resolves with ms until `ready(line)` holds for a line of its output. */
function timeUntil(args: string[], env: Record<string, string>, ready: (line: string) => boolean, input?: string): Promise<{ ms: number; rssKb: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let buffered = '';
    let done = false;
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      if (done || !lines.some(ready)) return;
      done = true;
      const ms = performance.now() - started;
      // At rest: a second after it is ready, once its start-up garbage is collected or not.
      setTimeout(() => {
        const rss = child.pid ? rssKb(child.pid) : 0;
        child.kill('SIGKILL');
        resolve({ ms, rssKb: rss });
      }, 1000);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      if (!done && code === 0 && ready(buffered)) {
        done = true;
        resolve({ ms: performance.now() - started, rssKb: 0 });
      } else if (!done) reject(new Error(`${args.join(' ')} exited ${code} before it was ready: ${buffered.slice(-500)}`));
    });
    if (input !== undefined) child.stdin.write(input);
  });
}

async function measure(runs: number, once: () => Promise<{ ms: number; rssKb: number }>): Promise<{ p50_ms: number; max_ms: number; rss_mib: number }> {
  const samples: Array<{ ms: number; rssKb: number }> = [];
  for (let i = 0; i < runs; i++) samples.push(await once());
  const ms = samples.map((s) => s.ms);
  return { p50_ms: round(quantile(ms, 0.5), 0), max_ms: round(Math.max(...ms), 0), rss_mib: round(quantile(samples.map((s) => s.rssKb), 0.5) / 1024, 0) };
}

export async function runStartTime(options: StartTimeOptions): Promise<Record<string, unknown>> {
  const env = { REDIS_URL: options.redisUrl, GUARDAGENT_PREFIX: options.prefix };
  const out: Record<string, unknown> = {};
  const initialize = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } })}\n`;
  for (const mode of ['built', 'source'] as const) {
    log(`start-time: ${mode}`);
    const version = await measure(options.runs, () => timeUntil([...cliArgs(mode), '--version'], {}, (line) => /^\d+\.\d+\.\d+/.test(line)));
    const mcp = await measure(options.runs, () =>
      timeUntil(
        [...cliArgs(mode), 'mcp', '--remote', '--policy', join(REPO_ROOT, 'examples/policies/refund-desk.yaml'), '--subject', '{"id":"bench","roles":["agent"]}', '--', process.execPath, EVERYTHING, 'stdio'],
        env,
        (line) => line.includes('"id":1') && line.includes('"result"'),
        initialize,
      ),
    );
    const services: Record<string, unknown> = {};
    for (const service of ['gateway', ...STAGES]) {
      const serviceEnv = service === 'gateway' ? { ...env, GUARDAGENT_GATEWAY_PORT: '0', GUARDAGENT_GATEWAY_HOST: '127.0.0.1' } : env;
      services[service] = await measure(options.runs, () =>
        timeUntil(nodeArgs(mode, service), serviceEnv, (line) => line.includes('service started') || line.includes('gateway listening')),
      );
    }
    out[`start_${mode}`] = { cli_version: version, mcp_initialize: mcp, services };
  }
  const built = out.start_built as { cli_version: { p50_ms: number }; mcp_initialize: { p50_ms: number }; services: Record<string, { p50_ms: number }> };
  out.start_cli_version_ms = built.cli_version.p50_ms;
  out.start_mcp_initialize_ms = built.mcp_initialize.p50_ms;
  out.start_slowest_service_ms = Math.max(...Object.values(built.services).map((s) => s.p50_ms));
  return out;
}
