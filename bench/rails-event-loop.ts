import { fork } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadConfig } from '@guardagent/config';
import { startRedisServer, type LocalRedis } from '@guardagent/local-redis';
import { createRuntime, silentLogger } from '@guardagent/pipeline';
import { RAILS_LOOP_JOBS } from './lib/rails-loop-jobs';

/**
 * How long one check holds an executor's event loop, by input. This process is an executor (the
 * executor stage's workers, its rails and its decision log, in-process); a child process is the
 * client, so its own work on the job (validation, JSON) is not counted. For each job: the
 * decision, the time to decide, and the executor's longest event-loop block while the job ran,
 * from monitorEventLoopDelay (10 ms resolution) and a 5 ms timer-drift probe (the larger is shown).
 * Usage: npx tsx bench/rails-event-loop.ts [--json]
 */
const json = process.argv.includes('--json');
let localRedis: LocalRedis | null = null;
const redisUrl = process.env.REDIS_URL || (localRedis = await startRedisServer()).url;
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

const rows: Array<ClientReply & { round: number; longest_block_ms: number }> = [];
try {
  await ask('ready');
  for (const round of [1, 2]) {
    for (const name of Object.keys(RAILS_LOOP_JOBS)) {
      const histogram = monitorEventLoopDelay({ resolution: 10 });
      let drift = 0;
      let last = performance.now();
      const probe = setInterval(() => {
        const now = performance.now();
        drift = Math.max(drift, now - last - 5);
        last = now;
      }, 5);
      histogram.enable();
      const reply = await ask(name);
      // One more turn so a block that ended with the reply is sampled.
      await new Promise((resolve) => setTimeout(resolve, 20));
      histogram.disable();
      clearInterval(probe);
      const longest = Math.max(histogram.max / 1e6 - 10, drift);
      rows.push({ ...reply, round, longest_block_ms: Math.round(longest) });
    }
  }
} finally {
  client.kill();
  await runtime.close();
  await localRedis?.stop();
}
if (json) console.log(JSON.stringify(rows));
else {
  console.log('| round | job | decision | rules | ms to decide | longest event-loop block, ms |\n| --- | --- | --- | --- | ---: | ---: |');
  for (const r of rows) console.log(`| ${r.round} | ${r.name} | ${r.decision}${r.error ? ` (${r.error})` : ''} | ${r.rules.join(', ')} | ${r.ms} | ${r.longest_block_ms} |`);
}
