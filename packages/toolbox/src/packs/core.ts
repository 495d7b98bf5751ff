import type { ToolboxFunction } from '../toolbox-function';
import { ALL_COLUMNS, normalizeAccessMap, sameAccess, type AccessMap } from './core/access-map';
import { accessReasons, checkAccess, type AccessCheck } from './core/check-access';
import {
  checkRules,
  evaluateCondition,
  RULE_OPERATORS,
  RuleSchema,
  ConditionSchema,
  type Condition,
  type Rule,
  type RuleCheck,
  type RuleOperator,
} from './core/check-rules';
import {
  extractField,
  extractSection,
  lookupKey,
  parseIdentity,
  parseKeyValueLines,
  parseScalar,
  type ScalarValue,
} from './core/text-helpers';
import { readFactsSection, type FactsSection } from './core/read-facts-section';

export {
  ALL_COLUMNS,
  normalizeAccessMap,
  sameAccess,
  accessReasons,
  checkAccess,
  checkRules,
  evaluateCondition,
  RULE_OPERATORS,
  RuleSchema,
  ConditionSchema,
  extractField,
  extractSection,
  lookupKey,
  parseIdentity,
  parseKeyValueLines,
  parseScalar,
  readFactsSection,
};
export type { FactsSection, AccessMap, AccessCheck, Condition, Rule, RuleCheck, RuleOperator, ScalarValue };

const plain = (
  name: string,
  signature: string,
  description: string,
  // biome-ignore lint/suspicious/noExplicitAny: any function at all; `unknown[]` parameters would not accept functions with typed ones
  fn: (...args: any[]) => unknown,
): ToolboxFunction => ({ name, pack: 'core', signature, description, async: false, create: () => fn });

/** Generic functions every guard program may call (always included). */
export const corePack: ToolboxFunction[] = [
  plain(
    'checkAccess',
    'checkAccess(needed: Record<string, string[]>, allowed: Record<string, string[]>): { denied: boolean, inaccessible: Record<string, string[]> }',
    'Compares needed tables→columns with allowed tables→columns (case-insensitive). A table missing from allowed makes all its needed columns inaccessible (["*"] when no column was named); "*" in allowed grants every column. Output is lower-cased, deduplicated and sorted.',
    checkAccess,
  ),
  plain(
    'accessReasons',
    'accessReasons(inaccessible: Record<string, string[]>, subject?: string): string[]',
    'One human-readable reason per inaccessible table, naming the table and each inaccessible column (e.g. for the deny reasons).',
    accessReasons,
  ),
  plain(
    'sameAccess',
    'sameAccess(a: Record<string, string[]>, b: Record<string, string[]>): boolean',
    'True when both maps name the same tables with the same column sets, ignoring case and order.',
    sameAccess,
  ),
  plain(
    'checkRules',
    "checkRules(rules: Array<{ id?: string, category?: string, field: string, operator: '=='|'!='|'>='|'>'|'<='|'<'|'in'|'not_in'|'truthy'|'falsy', value?: string|number|boolean|null|Array<string|number|boolean|null>, violation: string, when?: { field: string, operator: string, value?: any } }>, userInfo: Record<string, unknown>, categories?: string[]): { denied: boolean, violations: string[] }",
    'Each rule is a requirement "userInfo[field] operator value" that must hold; when it does not, its violation text is reported. With categories, only rules without a category or with one of the given categories apply; `when` limits a rule to users matching that condition. Strings like "true"/"18" compare as booleans/numbers; a missing field fails the requirement. Throws a validation error naming the bad rule field.',
    checkRules,
  ),
  plain(
    'parseKeyValueLines',
    'parseKeyValueLines(text: string): Record<string, string | number | boolean | null>',
    'Parses "key: value" / "key = value" lines into an object; true/false become booleans, numerals numbers, null/none null. The first occurrence of a key wins.',
    parseKeyValueLines,
  ),
  plain(
    'readFactsSection',
    'readFactsSection(text: string, marker: string): { facts: Record<string, string | number | boolean | null>, conflicts: string[] }',
    'Reads the "key: value" facts after marker (keys lower-cased, spaces and dashes as "_"), typed like parseKeyValueLines. A marker that appears more than once or a key given more than once is listed in conflicts (and such a key is left out of facts): treat any conflict as untrusted facts and deny.',
    readFactsSection,
  ),
  plain(
    'extractSection',
    'extractSection(text: string, startMarker: string, endMarker?: string): string | null',
    'The trimmed text after the first startMarker and before the next endMarker (or the end of text); null when startMarker does not occur.',
    extractSection,
  ),
  plain(
    'extractField',
    'extractField(text: string, label: string): string | null',
    'The trimmed value of the first "Label: value" line (label case-insensitive); null when absent.',
    extractField,
  ),
  plain(
    'parseIdentity',
    'parseIdentity(input: string): string | null',
    'The identity/role from an "Identity: X" line, lower-cased (e.g. "general administration"); null when absent.',
    parseIdentity,
  ),
  plain(
    'lookupKey',
    'lookupKey(record: Record<string, T>, key: string): T | undefined',
    'Looks a key up ignoring case, surrounding spaces and the difference between spaces, "_" and "-" (e.g. a role name in a per-role table).',
    lookupKey,
  ),
];
