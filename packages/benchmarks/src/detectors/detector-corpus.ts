import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ValidationError } from '@guardagent/errors';

/** One labelled text of a detector corpus (see data/detectors/README.md). */
export const CorpusTextSchema = z
  .object({
    text: z.string(),
    label: z.union([z.literal(0), z.literal(1)]),
    family: z.string().min(1),
    source: z.string().min(1),
    split: z.enum(['dev', 'heldout']),
  })
  .strict();
export type CorpusText = z.infer<typeof CorpusTextSchema>;

export const INJECTION_CORPUS_PATH = fileURLToPath(new URL('../../data/detectors/injection.jsonl', import.meta.url));

/** A JSONL corpus, each line validated (the error names the line and field). */
export function loadDetectorCorpus(path: string = INJECTION_CORPUS_PATH): CorpusText[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const out: CorpusText[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new ValidationError(`${path}:${i + 1}`, [{ path: '', message: `not JSON: ${(error as Error).message}` }]);
    }
    const parsed = CorpusTextSchema.safeParse(value);
    if (!parsed.success) throw new ValidationError(`${path}:${i + 1}`, parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })));
    out.push(parsed.data);
  });
  return out;
}
