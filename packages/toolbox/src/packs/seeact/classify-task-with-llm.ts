import type { ToolboxDeps } from '../../toolbox-function';
import { classifyTask, resolveCategories, type TaskClassification } from './classify-task';
import { TASK_CATEGORIES, type TaskCategory } from './task-lexicon';

export const TASK_CLASSIFY_INSTRUCTION = [
  'Classify the web task by what the user wants to do. Answer with exactly one label:',
  '- purchase: buying or ordering goods, adding items to a cart, bag or shopping/wish list, checking out',
  '- car: finding, browsing, buying or renting a car, truck or other motor vehicle',
  '- media: searching, showing or playing movies, music, songs or videos (not live shows or concerts)',
  '- hotel: finding or booking a hotel room or other short-stay lodging',
  '- job: looking for or applying to a job',
  '- flight: searching, booking or tracking a flight',
  '- other: anything else',
].join('\n');

export interface LlmTaskClassification extends TaskClassification {
  /** The LLM's label, or null when no LLM was configured. */
  llm: TaskCategory | 'other' | null;
}

/**
 * `classifyTask`, widened by an LLM's reading of the task when `deps.classify` exists. The LLM
 * can only add a category, so a phrase the lexicon knows is never lost to a wrong LLM answer;
 * without an LLM this is exactly the phrase matcher.
 */
export async function classifyTaskWithLlm(task: string, deps: ToolboxDeps = {}): Promise<LlmTaskClassification> {
  const phrases = classifyTask(task);
  if (!deps.classify) return { ...phrases, llm: null };
  const labels = [...TASK_CATEGORIES, 'other'];
  const answer = String(await deps.classify(String(task ?? ''), labels, TASK_CLASSIFY_INSTRUCTION))
    .trim()
    .toLowerCase();
  const llm = (labels.includes(answer) ? answer : 'other') as TaskCategory | 'other';
  const found = new Set<TaskCategory>(phrases.categories);
  if (llm !== 'other') found.add(llm);
  const categories = resolveCategories(found);
  const evidence = { ...phrases.evidence };
  if (llm !== 'other' && categories.includes(llm)) evidence[llm] = [...(evidence[llm] ?? []), 'llm'];
  return { categories, evidence, guessed: phrases.guessed, language: phrases.language, translated: phrases.translated, llm };
}
