import { QueueTransport } from '@guardagent/client/queue';
import { RAILS_LOOP_JOBS, RAILS_LOOP_POLICY } from './rails-loop-jobs';

/** The client of bench/rails-event-loop.ts: submits the job it is asked for, answers with its decision. */
const [redisUrl, prefix] = process.argv.slice(2) as [string, string];
const client = await QueueTransport.connect({ redisUrl, prefix });
await client.putPolicy(RAILS_LOOP_POLICY);
process.on('message', async ({ name }: { name: string }) => {
  if (name === 'ready') return process.send!({ name, decision: '', rules: [], ms: 0 });
  const started = performance.now();
  try {
    const decision = await client.check(RAILS_LOOP_JOBS[name]!, { timeoutMs: 60_000 });
    process.send!({ name, decision: `${decision.decision} / ${decision.status}`, rules: decision.rules, ms: Math.round(performance.now() - started) });
  } catch (error) {
    process.send!({ name, decision: 'error', rules: [], ms: Math.round(performance.now() - started), error: String(error) });
  }
});
process.on('disconnect', () => void client.close().then(() => process.exit(0)));
