import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { readLogEntries } from './read-log-entries';

/**
 * Write the replayable entries of a decision log export as a batch input file (one job per line,
 * the entry's id as the job's id), streaming. The same log gives the same file, so a replay run
 * again resumes its batch. Entries recorded without their job cannot be replayed: counted.
 */
export async function logToJobs(logPath: string, jobsPath: string): Promise<{ entries: number; replayable: number }> {
  const out = createWriteStream(jobsPath);
  let entries = 0;
  let replayable = 0;
  try {
    for await (const entry of readLogEntries(logPath)) {
      entries++;
      if (!entry.job) continue;
      replayable++;
      const { input, output, context, subject, action } = entry.job;
      const line = { id: entry.id, input, output, ...(Object.keys(context).length > 0 ? { context } : {}), ...(subject ? { subject } : {}), ...(action ? { action } : {}) };
      if (!out.write(`${JSON.stringify(line)}\n`)) await once(out, 'drain');
    }
  } finally {
    await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  }
  return { entries, replayable };
}
