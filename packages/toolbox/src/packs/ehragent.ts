import type { ToolboxFunction } from '../toolbox-function';
import { ehrCodeAccess, ehrCodeAnalysis, type CodeAnalysis } from './ehragent/code-access';
import { CodeUnanalysableError } from './ehragent/code-unanalysable-error';
import { ehrExtractCode } from './ehragent/extract-code';
import { EICU_SCHEMA, isEicuColumn } from './ehragent/eicu-schema';
import { parsePython } from './ehragent/parse-python';
import { MAX_NESTING, type Expr, type Stmt } from './ehragent/python-tree';
import { CodeTooComplexError } from './ehragent/code-too-complex-error';
import { conditionColumns, getValueColumns } from './ehragent/condition-columns';

export { CodeTooComplexError, CodeUnanalysableError, MAX_NESTING };
export { ehrCodeAccess, ehrCodeAnalysis, ehrExtractCode, EICU_SCHEMA, isEicuColumn, parsePython, conditionColumns, getValueColumns };
export type { Expr, Stmt, CodeAnalysis };

/** The tables/columns read by the code found in an output log (`ehrCodeAccess(ehrExtractCode(output))`). */
export function ehrOutputAccess(outputLog: string): Record<string, string[]> {
  return ehrCodeAccess(ehrExtractCode(outputLog));
}

/** A copy of the eICU schema (table → columns) EHRAgent works over. */
export function ehrSchema(): Record<string, string[]> {
  return Object.fromEntries(Object.entries(EICU_SCHEMA).map(([t, cols]) => [t, [...cols]]));
}

// biome-ignore lint/suspicious/noExplicitAny: any function at all; `unknown[]` parameters would not accept functions with typed ones
const plain = (name: string, signature: string, description: string, fn: (...args: any[]) => unknown): ToolboxFunction => ({
  name,
  pack: 'ehragent',
  signature,
  description,
  async: false,
  create: () => fn,
});

/** Functions for guarding EHRAgent (healthcare question answering by generated Python over eICU tables). */
export const ehragentPack: ToolboxFunction[] = [
  plain(
    'ehrExtractCode',
    'ehrExtractCode(outputLog: string): string',
    'The Python code EHRAgent generated, taken from the output log (after "Generated code:" up to the last "Answer:"; also fenced blocks or {"cell": ...} payloads); "" when there is none.',
    ehrExtractCode,
  ),
  plain(
    'ehrCodeAccess',
    'ehrCodeAccess(code: string): Record<string, string[]>',
    "Tables and columns EHRAgent's Python code reads: LoadDB('t'), FilterDB(db, 'col=v||col2>v') conditions, GetValue(db, 'col, max'), SQLInterpreter(sql), and row subscripts like row['col'], following variables, aliases, loops and nested calls. Lower-case, sorted; a table loaded but never read by column maps to []; for eICU tables only real columns count. Throws when the code nests too deeply to follow or does anything it cannot follow (a table name built at run time, eval/exec/getattr, an aliased LoadDB, a line it cannot read): the guard then fails closed.",
    ehrCodeAccess,
  ),
  plain(
    'ehrCodeAnalysis',
    'ehrCodeAnalysis(code: string): { access: Record<string, string[]>, unanalysable: string[] }',
    "Like ehrCodeAccess, but returns what it could not follow instead of throwing: `unanalysable` lists why the access may be incomplete (empty when it is complete). Deny when it is not empty, naming the reasons.",
    ehrCodeAnalysis,
  ),
  plain(
    'ehrOutputAccess',
    'ehrOutputAccess(outputLog: string): Record<string, string[]>',
    'Shortcut for ehrCodeAccess(ehrExtractCode(outputLog)): the tables and columns the code in an EHRAgent output log reads.',
    ehrOutputAccess,
  ),
  plain(
    'ehrSchema',
    'ehrSchema(): Record<string, string[]>',
    'The eICU schema EHRAgent works over: each of the 10 tables (allergy, cost, diagnosis, intakeoutput, lab, medication, microlab, patient, treatment, vitalperiodic) with all its columns.',
    ehrSchema,
  ),
];
