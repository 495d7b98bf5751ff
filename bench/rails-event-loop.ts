import { fork } from 'node:child_process';
import { loadConfig } from '@guardagent/config';
import { startRedisServer, type LocalRedis } from '@guardagent/local-redis';
import { createRuntime } from '@guardagent/pipeline';
import { startLoopProbe } from '@guardagent/testing';
import { RAILS_LOOP_JOBS } from './lib/rails-loop-jobs';
import { silentLogger } from '@guardagent/telemetry';

/**
 * How long one check holds an executor's event loop, by input. This process is an executor (the
 * executor stage's workers, its rails and its decision log, in-process); a child process is the
 * client, so its own work on the job (validation, JSON) is not counted. For each job: the
 * decision, the time to decide, and the executor's longest event-loop block while the job ran:
 * a 2 ms timer-drift probe (startLoopProbe) gives the longest gap between its ticks (wall clock)
 * and the most CPU time the executor's main thread spent inside one gap (its own work, not time
 * the OS gave other processes: the figure that does not depend on the machine's load), and
 * monitorEventLoopDelay's largest delay.
 * Usage: npx tsx bench/rails-event-loop.ts [--json]
 */
const json = process.argv.includes('--json');
let localRedis: LocalRedis | null = null;
if (!process.env.REDIS_URL) localRedis = await startRedisServer();
const redisUrl = process.env.REDIS_URL || localRedis!.url;
const prefix = `bench-loop-${process.pid}`;
const runtime = await createRuntime(loadConfig({}, { redisUrl, prefix }), { llm: null, logger: silentLogger });
runtime.startWorkers(['executor']);

const client = fork(new URL('./lib/rails-loop-client.ts', import.meta.url), [redisUrl, prefix], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const replies: Array<(m: ClientReply) => void> = [];
interface ClientReply { name: string; decision: string; rules: string[]; ms: number; error?: string }
client.on('message', (m) => replies.shift()?.(m as ClientReply));
const ask = (name: string) => new Promise<ClientReply>((resolve) => {
  replies.push(resolve);
  client.send({ name });
});

const rows: Array<ClientReply & { round: number; busy_ms: number; gap_ms: number; delay_max_ms: number }> = [];
const round1 = (ms: number) => Math.round(ms * 10) / 10;
try {
  await ask('ready');
  for (const round of [1, 2]) {
    for (const name of Object.keys(RAILS_LOOP_JOBS)) {
      const probe = startLoopProbe(2);
      const reply = await ask(name);
      // One more turn so a block that ended with the reply is sampled.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const blocks = probe.stop();
      rows.push({ ...reply, round, busy_ms: round1(blocks.longestBusyMs), gap_ms: round1(blocks.longestGapMs), delay_max_ms: round1(blocks.delayMaxMs) });
    }
  }
} finally {
  client.kill();
  await runtime.close();
  await localRedis?.stop();
}
if (json) console.log(JSON.stringify(rows));
else {
  console.log('| round | job | decision | rules | ms to decide | longest block: main-thread CPU, ms | longest gap (wall), ms | monitorEventLoopDelay max, ms |\n| --- | --- | --- | --- | ---: | ---: | ---: | ---: |');
  for (const r of rows) console.log(`| ${r.round} | ${r.name} | ${r.decision}${r.error ? ` (${r.error})` : ''} | ${r.rules.join(', ')} | ${r.ms} | ${r.busy_ms} | ${r.gap_ms} | ${r.delay_max_ms} |`);
}
