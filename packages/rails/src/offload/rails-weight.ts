import type { RailsJob } from '../rails-job';

/**
 * Characters the rails' filters read for a job, counted up to `limit` (the walk stops past it): the
 * input, output and message texts, and a tool call's argument texts three times (the injection
 * filter reads them together three ways). Keys and values of JSON count by their length; other
 * JSON by a character or two. A cheap upper estimate, never the detectors' own work.
 */
export function railsWeight(job: RailsJob, limit: number): number {
  let total = 0;
  const add = (value: unknown, times = 1): boolean => {
    total += times * jsonChars(value, Math.max(0, limit - total) / times + 1);
    return total > limit;
  };
  if (add(job.input) || add(job.output)) return total;
  const action = job.action;
  if (action?.kind === 'message') add(action.text);
  else if (action?.kind === 'tool_call') add(action.args, 3);
  return total;
}

/** Characters of a value's texts (string values and keys; a few per number or literal), up to `limit`. */
export function jsonChars(value: unknown, limit: number): number {
  if (typeof value === 'string') return value.length;
  if (value === undefined || value === null) return 0;
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total <= limit) {
    const v = stack.pop();
    if (typeof v === 'string') total += v.length + 1;
    else if (Array.isArray(v)) {
      total += 1;
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
    } else if (v !== null && typeof v === 'object') {
      for (const key of Object.keys(v)) {
        total += key.length + 1;
        stack.push((v as Record<string, unknown>)[key]);
      }
    } else total += 2;
  }
  return total;
}
