/**
 * Builds packages/benchmarks/data/detectors/injection.jsonl from public repositories, read at
 * pinned commits from local git mirrors (see the README beside the corpus). Run:
 *   node --import tsx packages/benchmarks/scripts/build-injection-corpus.ts <mirrors-dir>
 * where <mirrors-dir>/<owner>+<name>/repo is a git directory holding the commit below.
 * Deterministic: the same commits give the same file.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

interface Row {
  text: string;
  label: 0 | 1;
  family: string;
  source: string;
}

const SOURCES = {
  safeGuard: { repo: 'jonastuttle/prompt-injection-detector-classifier', commit: '81ea9f7a952304578c33351c5e9926993663d381' },
  tensorTrust: { repo: 'HumanCompatibleAI/tensor-trust-data', commit: 'e2385ea9cf448c9641b96e2e39f113ed4979a5b0' },
  bipia: { repo: 'microsoft/BIPIA', commit: '1a2a91da6bb12838e05d1b2e54d98e2f37b835f3' },
  alpaca: { repo: 'tatsu-lab/stanford_alpaca', commit: '761dc5bfbdeeffa89b8bff5d038781a4055f796a' },
} as const;

const MAX_CHARS = 2_000;
const BENIGN_PROMPTS = 1_500;

const mirrors = process.argv[2] ?? '/work/.mirror';
function show(source: { repo: string; commit: string }, path: string): string {
  const dir = join(mirrors, source.repo.replace('/', '+'), 'repo');
  return execFileSync('git', ['-C', dir, 'show', `${source.commit}:${path}`], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}
// biome-ignore lint/suspicious/noExplicitAny: rows of the source data sets, read field by field
const jsonl = (text: string): any[] => text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
const hash = (text: string) => createHash('sha256').update(text).digest('hex');
const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
const cite = (source: { repo: string; commit: string }, path: string) => `${source.repo}@${source.commit.slice(0, 7)}:${path}`;

const rows: Row[] = [];

// 1. xTRam1/safe-guard-prompt-injection as committed in jonastuttle's repository (labels 0/1, with
//    a category). "Harmful Request" rows ask for harmful content directly; they are not attempts
//    to take over the model, so they are left out of a prompt-injection corpus.
{
  const path = 'datasets/prompt_injection_dataset_final.jsonl';
  const all = jsonl(show(SOURCES.safeGuard, path));
  const benign = all.filter((r) => r.label === 0).sort((a, b) => hash(a.text).localeCompare(hash(b.text))).slice(0, BENIGN_PROMPTS);
  for (const r of benign) rows.push({ text: r.text, label: 0, family: 'benign-prompt', source: cite(SOURCES.safeGuard, path) });
  for (const r of all) {
    if (r.label !== 1 || r.injection_type === 'Harmful Request') continue;
    rows.push({ text: r.text, label: 1, family: slug(String(r.injection_type)), source: cite(SOURCES.safeGuard, path) });
  }
}

// 2. Tensor Trust: attacks players wrote to hijack a defended model or extract its prompt.
for (const [path, family] of [
  ['benchmarks/hijacking-robustness/v1/hijacking_robustness_dataset.jsonl', 'tensor-trust-hijacking'],
  ['benchmarks/extraction-robustness/v1/extraction_robustness_dataset.jsonl', 'tensor-trust-extraction'],
] as const) {
  for (const r of jsonl(show(SOURCES.tensorTrust, path))) rows.push({ text: r.attack, label: 1, family, source: cite(SOURCES.tensorTrust, path) });
}

// 3. BIPIA: indirect injection. Its emails, tables and code contexts are benign external content;
//    its attack instructions are inserted at the end of an email, as the benchmark does.
{
  const emails = [...jsonl(show(SOURCES.bipia, 'benchmark/email/train.jsonl')), ...jsonl(show(SOURCES.bipia, 'benchmark/email/test.jsonl'))].map((r) => String(r.context));
  for (const e of emails) rows.push({ text: e, label: 0, family: 'email', source: cite(SOURCES.bipia, 'benchmark/email/*.jsonl') });
  for (const r of jsonl(show(SOURCES.bipia, 'benchmark/table/test.jsonl'))) rows.push({ text: String(r.context), label: 0, family: 'table', source: cite(SOURCES.bipia, 'benchmark/table/test.jsonl') });
  for (const r of jsonl(show(SOURCES.bipia, 'benchmark/code/test.jsonl'))) rows.push({ text: String(r.context), label: 0, family: 'code-context', source: cite(SOURCES.bipia, 'benchmark/code/test.jsonl') });
  let i = 0;
  for (const [file, family] of [
    ['benchmark/text_attack_train.json', 'bipia-text-attack'],
    ['benchmark/text_attack_test.json', 'bipia-text-attack'],
    ['benchmark/code_attack_train.json', 'bipia-code-attack'],
    ['benchmark/code_attack_test.json', 'bipia-code-attack'],
  ] as const) {
    const attacks = Object.values(JSON.parse(show(SOURCES.bipia, file)) as Record<string, string[]>).flat();
    for (const attack of attacks) {
      const email = emails[i++ % emails.length]!;
      // Room for the attack within the length cap: the email is cut, the attack never.
      const head = email.slice(0, Math.max(0, MAX_CHARS - attack.length - 2));
      rows.push({ text: `${head}\n\n${attack}`, label: 1, family, source: cite(SOURCES.bipia, file) });
    }
  }
}

// 4. Stanford Alpaca's seed tasks: ordinary instructions a user gives (benign, instruction-shaped).
for (const r of jsonl(show(SOURCES.alpaca, 'seed_tasks.jsonl'))) {
  const input = r.instances?.[0]?.input ? `\n${r.instances[0].input}` : '';
  rows.push({ text: `${r.instruction}${input}`, label: 0, family: 'instruction', source: cite(SOURCES.alpaca, 'seed_tasks.jsonl') });
}

// Deduplicate (first wins), cap the length, split by a hash of the text: half dev, half held out.
const seen = new Set<string>();
const out: string[] = [];
const counts: Record<string, number> = {};
for (const row of rows) {
  const text = row.text.slice(0, MAX_CHARS);
  const key = text.trim().toLowerCase().replace(/\s+/g, ' ');
  if (key === '' || seen.has(key)) continue;
  seen.add(key);
  const split = parseInt(hash(key).slice(0, 2), 16) % 2 === 0 ? 'dev' : 'heldout';
  out.push(JSON.stringify({ text, label: row.label, family: row.family, source: row.source, split }));
  counts[`${row.label} ${row.family} ${split}`] = (counts[`${row.label} ${row.family} ${split}`] ?? 0) + 1;
}
const target = new URL('../data/detectors/injection.jsonl', import.meta.url);
writeFileSync(target, `${out.join('\n')}\n`);
console.log(`${out.length} texts`);
for (const [k, n] of Object.entries(counts).sort()) console.log(`  ${k}: ${n}`);
