import type { Command } from 'commander';
import { exportLog } from '../replay/export-log';

export function registerLog(program: Command): void {
  const log = program.command('log').description('the decision log: decisions recorded with their jobs (needs REDIS_URL)');
  log
    .command('export')
    .description('print recorded decisions as JSON lines, oldest first (a replay or batch input)')
    .option('--policy <id>', "only this policy's decisions")
    .option('--since <when>', 'from this time: a duration back (30m, 24h, 7d) or an ISO date')
    .option('--until <when>', 'before this time: a duration back or an ISO date')
    .option('--tenant <id>', 'tenant', 'default')
    .action(async (options: { policy?: string; since?: string; until?: string; tenant: string }) => {
      const count = await exportLog(
        { command: 'log export', tenant: options.tenant, ...(options.policy ? { policyId: options.policy } : {}), ...(options.since ? { since: options.since } : {}), ...(options.until ? { until: options.until } : {}) },
        // Backpressure: a log of any size streams out without piling up in memory.
        async (line) => {
          if (!process.stdout.write(line)) await new Promise<void>((resolve) => process.stdout.once('drain', () => resolve()));
        },
      );
      process.stderr.write(`exported ${count} decisions\n`);
    });
}
