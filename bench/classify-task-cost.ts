import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { classifyTask } from '../packages/toolbox/src/packs/seeact/classify-task';
import { readEnglish } from '../packages/toolbox/src/packs/seeact/english-reading';
import { cueSlips } from '../packages/toolbox/src/packs/seeact/cue-words';
import { readForeignWords } from '../packages/toolbox/src/packs/seeact/foreign-reading';
import { soundAlike } from '../packages/toolbox/src/packs/seeact/sound-alikes';

/**
 * µs per task of `classifyTask` over the Mind2Web-SC dev tasks (../shared/benchmarks), split into
 * the tasks in no category (since seeact pack 4 these are read by meaning too) and the rest; 20,000 calls per
 * figure, three rounds; and `readEnglish`, which the Mind2Web-SC program calls for a task in no
 * category, over those tasks. Then the first and the second WordNet reading in this process, and the RSS
 * the first one added, and the build of the cue words' slip index (seeact pack 7), of the word
 * lists of other languages and of the cue words' sound index (seeact pack 8), each timed alone.
 * Usage: npx tsx bench/classify-task-cost.ts
 */
const dev = join(import.meta.dirname, '../../shared/benchmarks/mind2web-sc/dev.json');
if (!existsSync(dev)) throw new Error(`needs the Mind2Web-SC dev half at ${dev}`);

// The index of the cue words' keyboard slips, built once per process, timed alone.
const slipsStarted = performance.now();
const slipEntries = cueSlips().size;
const slipIndexMs = Math.round(performance.now() - slipsStarted);
// The word lists of other languages and the cue words' phonetic keys, built once per process (seeact pack 8).
let builtAt = performance.now();
readForeignWords('Alquila un coche', () => false);
const foreignListsMs = Math.round(performance.now() - builtAt);
builtAt = performance.now();
soundAlike('moovie');
const soundIndexMs = Math.round(performance.now() - builtAt);
classifyTask('Rent a car'); // loads the phrase lexicon only
const rssBefore = process.memoryUsage().rss;
let started = performance.now();
classifyTask('Book a jetliner seat');
const firstMs = performance.now() - started;
started = performance.now();
classifyTask('Find a dune buggy');
const secondMs = performance.now() - started;
const addedMiB = (process.memoryUsage().rss - rssBefore) / 2 ** 20;

const tasks = (JSON.parse(readFileSync(dev, 'utf8')) as Array<{ confirmed_task: string }>).map((r) => r.confirmed_task);
const unplaced = tasks.filter((t) => classifyTask(t).categories.length === 0);
const placed = tasks.filter((t) => !unplaced.includes(t));
function perTask(items: string[], fn: (task: string) => unknown = classifyTask): number {
  const started = performance.now();
  for (let i = 0; i < 20_000; i++) fn(items[i % items.length]!);
  return Math.round(((performance.now() - started) / 20) * 10) / 10;
}
const rounds = [0, 1, 2].map(() => ({ unplaced_us: perTask(unplaced), placed_us: perTask(placed), read_english_unplaced_us: perTask(unplaced, readEnglish) }));
console.log(JSON.stringify({ unplaced: unplaced.length, placed: placed.length, rounds, first_sense_reading_ms: Math.round(firstMs), second_ms: Math.round(secondMs * 100) / 100, first_rss_mib: Math.round(addedMiB * 10) / 10, slip_index_entries: slipEntries, slip_index_ms: slipIndexMs, foreign_lists_ms: foreignListsMs, sound_index_ms: soundIndexMs }));
