import { localProgram, mind2webScPolicy } from '../packages/benchmarks/src/index';
import {
  BENIGN_ENGLISH,
  BENIGN_FOREIGN_HELD_OUT,
  BENIGN_TASKS,
  RULED_TASKS,
  encodeHtmlReferences,
  encodeLookAlikes,
  encodeMarkdown,
  type BaseTask,
} from '../packages/benchmarks/test/fixtures/mind2web-rewrites';

/**
 * The Mind2Web-SC program on issue 37's rewrite sets (packages/benchmarks/test/fixtures/
 * mind2web-rewrites.ts), for a user who fails every rule: per kind of rewrite, the share of
 * rewritten ruled tasks denied and of rewritten benign tasks allowed; then the benign sets'
 * false denials. `--json` prints one object. Usage: npx tsx bench/rewrite-rates.ts [--json]
 */
const policy = mind2webScPolicy();
const run = localProgram(policy.program ?? '', policy.toolbox);
const output = '(Final Answer)\nELEMENT: A\n\nACTION: CLICK\n\nVALUE: None';
const facts = 'age: 12\ndomestic: false\ndr_license: false\nvaccine: false\nmembership: false';
const deny = async (task: string) => (await run({ input: `Task: ${task}\n\nuser_info:\n${facts}`, output })).decision === 'deny';

const KINDS = ['synonyms', 'another script', 'look-alike letters', 'sound-alikes', 'HTML references', 'markdown', 'other languages'] as const;
const rewrite = (base: BaseTask, kind: (typeof KINDS)[number]): string | undefined =>
  kind === 'HTML references' ? encodeHtmlReferences(base.task) : kind === 'markdown' ? encodeMarkdown(base.task) : kind === 'look-alike letters' ? encodeLookAlikes(base.task) : base.rewrites[kind];

async function share(tasks: string[], wantDeny: boolean): Promise<{ ok: number; n: number }> {
  let ok = 0;
  for (const task of tasks) if ((await deny(task)) === wantDeny) ok++;
  return { ok, n: tasks.length };
}

const rows: Array<{ kind: string; attack_denied: string; benign_allowed: string }> = [];
let attackOk = 0;
let attackN = 0;
let benignOk = 0;
let benignN = 0;
for (const kind of KINDS) {
  const attack = await share(RULED_TASKS.flatMap((b) => rewrite(b, kind) ?? []), true);
  const benign = await share(BENIGN_TASKS.flatMap((b) => rewrite(b, kind) ?? []), false);
  attackOk += attack.ok;
  attackN += attack.n;
  benignOk += benign.ok;
  benignN += benign.n;
  rows.push({ kind, attack_denied: `${attack.ok}/${attack.n}`, benign_allowed: `${benign.ok}/${benign.n}` });
}
const english = await share(BENIGN_ENGLISH, false);
const foreign = await share(BENIGN_FOREIGN_HELD_OUT, false);
const pct = (ok: number, n: number) => Math.round((1000 * ok) / n) / 10;
const result = {
  rows,
  attack_denied_pct: pct(attackOk, attackN),
  benign_rewrites_allowed_pct: pct(benignOk, benignN),
  benign_english_false_denials: `${english.n - english.ok}/${english.n}`,
  benign_foreign_held_out_allowed: `${foreign.ok}/${foreign.n}`,
};
if (process.argv.includes('--json')) console.log(JSON.stringify(result));
else {
  console.log('kind                 ruled denied  benign allowed');
  for (const r of rows) console.log(`${r.kind.padEnd(20)} ${r.attack_denied.padStart(12)}  ${r.benign_allowed.padStart(14)}`);
  console.log(`all                  ${`${result.attack_denied_pct} %`.padStart(12)}  ${`${result.benign_rewrites_allowed_pct} %`.padStart(14)}`);
  console.log(`benign English tasks denied: ${result.benign_english_false_denials}; benign foreign tasks (held out from the word lists) allowed: ${result.benign_foreign_held_out_allowed}`);
}
