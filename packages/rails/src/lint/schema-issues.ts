import type { FieldIssue } from '@guardagent/errors';
import { didYouMean, listNames } from '@guardagent/schemas';
import { ARGS_FORMATS } from '../args-schema';
import { compileLinearRegExp, UnsupportedPatternError } from '../linear-regexp';

/** The keywords of JSON Schema (draft 2020-12 and draft-07) that Ajv reads, and the annotations it allows. */
const KEYWORDS = [
  '$schema', '$id', '$ref', '$defs', 'definitions', '$comment', '$anchor', '$dynamicRef', '$dynamicAnchor', '$vocabulary',
  'type', 'enum', 'const', 'title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly',
  'properties', 'patternProperties', 'additionalProperties', 'propertyNames', 'required', 'minProperties', 'maxProperties',
  'dependentRequired', 'dependentSchemas', 'dependencies', 'unevaluatedProperties',
  'items', 'prefixItems', 'additionalItems', 'contains', 'minContains', 'maxContains', 'minItems', 'maxItems', 'uniqueItems', 'unevaluatedItems',
  'minLength', 'maxLength', 'pattern', 'format', 'contentEncoding', 'contentMediaType', 'contentSchema',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'nullable', 'discriminator',
];
const KEYWORD_SET = new Set(KEYWORDS);
const TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_SINGLES = ['items', 'additionalItems', 'additionalProperties', 'contains', 'not', 'if', 'then', 'else', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'contentSchema'];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
/** A key as a dotted path segment (`.amount`). */
const segment = (key: string) => `.${key}`;

function patternIssue(pattern: unknown, path: string): FieldIssue | null {
  if (typeof pattern !== 'string') return { path, message: 'a pattern must be a string' };
  try {
    compileLinearRegExp(pattern, 'u');
    return null;
  } catch (error) {
    if (error instanceof UnsupportedPatternError) return { path, message: error.message };
    throw error;
  }
}

/**
 * Mistakes in a tool's argument schema that Ajv would report without saying where, found by
 * walking it: an unknown keyword (a slip of a known one: `minimun`), a type that is not a JSON
 * type, a pattern the linear-time engine cannot run, an unknown format, a required field the
 * schema's own properties do not list. Each issue is at the keyword's path.
 */
export function schemaIssues(schema: unknown, path: string): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const walk = (node: unknown, at: string): void => {
    if (typeof node === 'boolean') return;
    if (!isObject(node)) {
      issues.push({ path: at, message: 'a schema must be an object (or true/false)' });
      return;
    }
    for (const key of Object.keys(node)) {
      if (!KEYWORD_SET.has(key)) {
        const hint = didYouMean(key, KEYWORDS);
        issues.push({ path: `${at}${segment(key)}`, message: `unknown JSON Schema keyword '${key}'${hint || ' (annotations may be written in description)'}` });
      }
    }
    const types = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
    for (const type of types) {
      if (typeof type !== 'string' || !TYPES.includes(type)) {
        issues.push({ path: `${at}.type`, message: `'${String(type)}' is not a JSON Schema type (${TYPES.join(', ')})${typeof type === 'string' ? didYouMean(type, TYPES) : ''}` });
      }
    }
    if (node.pattern !== undefined) {
      const problem = patternIssue(node.pattern, `${at}.pattern`);
      if (problem) issues.push(problem);
    }
    if (isObject(node.patternProperties)) {
      for (const key of Object.keys(node.patternProperties)) {
        const problem = patternIssue(key, `${at}.patternProperties${segment(key)}`);
        if (problem) issues.push(problem);
      }
    }
    if (node.format !== undefined && (typeof node.format !== 'string' || !ARGS_FORMATS.includes(node.format))) {
      issues.push({ path: `${at}.format`, message: `unknown format '${String(node.format)}' (known: ${ARGS_FORMATS.join(', ')})${typeof node.format === 'string' ? didYouMean(node.format, ARGS_FORMATS) : ''}` });
    }
    if (Array.isArray(node.required) && isObject(node.properties)) {
      const declared = Object.keys(node.properties);
      const open = node.additionalProperties !== undefined && node.additionalProperties !== false;
      const composed = ['allOf', 'anyOf', 'oneOf', '$ref', 'patternProperties', 'dependentSchemas', 'if'].some((k) => node[k] !== undefined);
      if (!open && !composed) {
        node.required.forEach((field, i) => {
          if (typeof field === 'string' && !declared.includes(field)) {
            issues.push({
              path: `${at}.required[${i}]`,
              message: `required '${field}' is not among the properties (${listNames(declared)}), so no call can pass${didYouMean(field, declared)}`,
            });
          }
        });
      }
    }
    for (const key of SCHEMA_MAPS) {
      if (isObject(node[key])) for (const [name, sub] of Object.entries(node[key])) walk(sub, `${at}.${key}${segment(name)}`);
    }
    for (const key of SCHEMA_LISTS) {
      if (Array.isArray(node[key])) for (const [i, sub] of (node[key] as unknown[]).entries()) walk(sub, `${at}.${key}[${i}]`);
    }
    for (const key of SCHEMA_SINGLES) {
      // `items` may be a list of schemas in draft-07.
      if (Array.isArray(node[key])) for (const [i, sub] of (node[key] as unknown[]).entries()) walk(sub, `${at}.${key}[${i}]`);
      else if (node[key] !== undefined) walk(node[key], `${at}.${key}`);
    }
  };
  walk(schema, path);
  return issues;
}

/**
 * The fields an object schema allows at `fields` below it (null where any may appear): what a
 * condition's `args.a.b` may name. Only schemas closed to unknown properties answer (see
 * closeObjectSchemas); anything composed (allOf, $ref, patternProperties) answers null.
 */
export function allowedFields(closedSchema: unknown, fields: readonly string[]): string[] | null {
  let node = closedSchema;
  for (const field of fields) {
    if (!isObject(node) || !isObject(node.properties) || !(field in node.properties)) return null;
    node = node.properties[field];
  }
  if (!isObject(node) || !isObject(node.properties) || node.additionalProperties !== false) return null;
  if (['allOf', 'anyOf', 'oneOf', '$ref', 'patternProperties', 'unevaluatedProperties', 'if', 'dependentSchemas'].some((k) => node[k] !== undefined)) return null;
  return Object.keys(node.properties);
}
