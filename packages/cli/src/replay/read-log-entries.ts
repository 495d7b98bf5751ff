import { DecisionLogEntrySchema, type DecisionLogEntry } from '@guardagent/schemas';
import { BatchInputError } from '../batch/batch-input-error';
import { readLines } from '../batch/read-lines';

/**
 * The entries of a decision log export (`guardagent log export`), one at a time. A line that is
 * not an entry stops the read with a BatchInputError naming the line and field.
 */
export async function* readLogEntries(path: string): AsyncGenerator<DecisionLogEntry> {
  for await (const line of readLines(path)) {
    if (!line.text.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(line.text);
    } catch (error) {
      throw new BatchInputError(path, line.number, '', `not JSON: ${(error as Error).message}`);
    }
    const parsed = DecisionLogEntrySchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new BatchInputError(path, line.number, issue?.path.join('.') ?? '', `not a decision log entry: ${issue?.message ?? 'invalid'}`);
    }
    yield parsed.data;
  }
}
