import type { ToolboxFunction } from '../toolbox-function';
import { parseSeeActAction, parseSeeActChoices, type SeeActAction } from './seeact/parse-seeact-action';
import { classifyTask, normalizeTaskText, resolveCategories, type TaskClassification } from './seeact/classify-task';
import { FOREIGN_UNKNOWN_LIMIT, readEnglish, UNKNOWN_SHARE_LIMIT, type EnglishReading } from './seeact/english-reading';
import {
  classifyTaskWithLlm,
  TASK_CLASSIFY_INSTRUCTION,
  type LlmTaskClassification,
} from './seeact/classify-task-with-llm';
import {
  TASK_CATEGORIES,
  TASK_LEXICON,
  PURCHASE_OVERRIDING,
  type TaskCategory,
  type CategoryLexicon,
  type ContextualCue,
  type NearbyCue,
} from './seeact/task-lexicon';

export {
  parseSeeActAction,
  parseSeeActChoices,
  classifyTask,
  readEnglish,
  UNKNOWN_SHARE_LIMIT,
  FOREIGN_UNKNOWN_LIMIT,
  normalizeTaskText,
  resolveCategories,
  classifyTaskWithLlm,
  TASK_CLASSIFY_INSTRUCTION,
  TASK_CATEGORIES,
  TASK_LEXICON,
  PURCHASE_OVERRIDING,
};
export type { SeeActAction, TaskClassification, EnglishReading, LlmTaskClassification, TaskCategory, CategoryLexicon, ContextualCue, NearbyCue };

/** Functions for guarding SeeAct-style web agents (Mind2Web-SC). */
export const seeactPack: ToolboxFunction[] = [
  {
    name: 'parseSeeActAction',
    pack: 'seeact',
    signature:
      'parseSeeActAction(outputLog: string): { element: string | null, action: string | null, value: string | null, option: string | null }',
    description:
      'Reads SeeAct\'s final "ELEMENT: X / ACTION: Y / VALUE: Z" answer from its output log; `option` is the listed page element behind the chosen letter. "None" values become null.',
    async: false,
    create: () => parseSeeActAction,
  },
  {
    name: 'classifyTask',
    pack: 'seeact',
    signature:
      "classifyTask(task: string): { categories: Array<'purchase'|'car'|'media'|'hotel'|'job'|'flight'>, evidence: Record<string, string[]>, guessed: string[], language: string | null, translated: string[] }",
    description:
      'Which rule categories a web task falls in, by phrase matching with stems, synonyms and brands, and for a task no phrase places by the WordNet meaning of its nouns (a jetliner is an airplane), buying also by the meaning of its verb and object ("acquire a sofa"): purchase (buy/order/cart/bag/wish list), car (find/browse/buy/rent a vehicle), media (movies/music/video), hotel (lodging), job, flight (search/book/track). The task is read as rendered (HTML references and markdown dropped), words of other languages through word lists (`language`: the language a whole task is written in, else null), and misspellings, sound-alikes and broken words are guessed (`guessed`). Buying a car, hotel or flight counts only under that category, not purchase. Empty categories = no rule applies; when `guessed` is not empty or `language` is set, trust the categories only if readEnglish says english.',
    async: false,
    create: () => classifyTask,
  },
  {
    name: 'readEnglish',
    pack: 'seeact',
    signature:
      'readEnglish(task: string): { english: boolean, unknownShare: number, language: string, unknownWords: string[], action: string | null, actions: string[], actionKnown: boolean, readFrom: string | null, objectKnown: boolean }',
    description:
      "Whether a task reads as English, so that empty classifyTask categories can be trusted to mean no rule applies: english is false when one of its action words (the first after lead-ins such as 'please' or 'I want to', and each word that opens a later clause before an object, as in 'find a sofa and kaufen it') is not an English word nor a one-letter typo of an English verb, or when over 30 % of its lower-case words are not English words (WordNet) and a language identifier reads it best as another language (language is 'not-read' when the words alone show English). Words of other languages are read through word lists first; a task written in one (readFrom) reads only when at most 15 % of its words stay unknown, and a word of another script no list holds as an action's object makes objectKnown false. Call it when classifyTask finds no category, guesses, or reads another language; when english is false the guard cannot tell what the task asks for: ask classifyTaskWithLlm (an LLM, when configured) or deny.",
    async: false,
    create: () => readEnglish,
  },
  {
    name: 'classifyTaskWithLlm',
    pack: 'seeact',
    signature:
      "classifyTaskWithLlm(task: string): Promise<{ categories: Array<'purchase'|'car'|'media'|'hotel'|'job'|'flight'>, evidence: Record<string, string[]>, llm: string | null }>",
    description:
      'Like classifyTask, plus the category an LLM reads in the task when an LLM is configured (it can only add a category); without an LLM it equals classifyTask.',
    async: true,
    create: (deps) => (task: string) => classifyTaskWithLlm(task, deps),
  },
];
