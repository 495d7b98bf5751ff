/**
 * Builds packages/benchmarks/data/detectors/pii.jsonl from presidio-research's synthetic data set
 * (microsoft/presidio-research, data/synth_dataset_v2.json, MIT), read at a pinned commit from a
 * local git mirror. Run:
 *   node --import tsx packages/benchmarks/scripts/build-pii-corpus.ts <mirrors-dir>
 * Spans of the entity types GuardAgent detects are kept (mapped to its kinds); the texts keep all
 * their other content, so a detector that flags a name or a date as a phone is counted wrong.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SOURCE = { repo: 'microsoft/presidio-research', commit: '7622dec1e5f7d25dc60b57c28c39f4c4af197018', path: 'data/synth_dataset_v2.json' };
const KINDS: Record<string, string> = {
  EMAIL_ADDRESS: 'email',
  PHONE_NUMBER: 'phone',
  CREDIT_CARD: 'card',
  IBAN_CODE: 'iban',
  US_SSN: 'ssn',
  IP_ADDRESS: 'ip',
};

const mirrors = process.argv[2] ?? '/work/.mirror';
const dir = join(mirrors, SOURCE.repo.replace('/', '+'), 'repo');
const records = JSON.parse(execFileSync('git', ['-C', dir, 'show', `${SOURCE.commit}:${SOURCE.path}`], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })) as Array<{
  full_text: string;
  spans: Array<{ entity_type: string; start_position: number; end_position: number }>;
}>;
const source = `${SOURCE.repo}@${SOURCE.commit.slice(0, 7)}:${SOURCE.path}`;
const lines = records.map((r) => {
  const spans = r.spans
    .filter((s) => KINDS[s.entity_type])
    .map((s) => ({ kind: KINDS[s.entity_type], start: s.start_position, end: s.end_position }))
    .sort((a, b) => a.start - b.start);
  const split = parseInt(createHash('sha256').update(r.full_text).digest('hex').slice(0, 2), 16) % 2 === 0 ? 'dev' : 'heldout';
  return JSON.stringify({ text: r.full_text, spans, source, split });
});
writeFileSync(new URL('../data/detectors/pii.jsonl', import.meta.url), `${lines.join('\n')}\n`);
console.log(`${lines.length} texts`);
