import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { compileLinearRegExp } from './linear-regexp';
import type { FieldIssue } from '@guardagent/errors';

export type ArgsValidator = (args: unknown) => string[];

/** Keywords under which a (sub)schema is itself a schema we may tighten. allOf is left alone on purpose. */
const SCHEMA_MAPS = ['properties', '$defs', 'definitions', 'patternProperties', 'dependentSchemas'] as const;
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'prefixItems'] as const;
const SCHEMA_SINGLES = ['items', 'additionalItems', 'contains', 'not', 'if', 'then', 'else'] as const;

function isObjectSchema(schema: Record<string, unknown>): boolean {
  const type = schema.type;
  if (type === 'object' || (Array.isArray(type) && type.includes('object'))) return true;
  return type === undefined && typeof schema.properties === 'object';
}

/**
 * A copy of `schema` where every object schema that does not say otherwise rejects unknown
 * properties (`additionalProperties: false`). Schemas that compose properties from elsewhere
 * (allOf, $ref, patternProperties, unevaluatedProperties) are left as written: closing them
 * would reject properties their parts allow.
 */
export function closeObjectSchemas(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closeObjectSchemas);
  if (typeof schema !== 'object' || schema === null) return schema;
  const source = schema as Record<string, unknown>;
  const out: Record<string, unknown> = { ...source };
  for (const key of SCHEMA_MAPS) {
    const map = source[key];
    if (typeof map === 'object' && map !== null && !Array.isArray(map)) {
      out[key] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, closeObjectSchemas(v)]));
    }
  }
  for (const key of SCHEMA_LISTS) {
    if (Array.isArray(source[key])) out[key] = (source[key] as unknown[]).map(closeObjectSchemas);
  }
  for (const key of SCHEMA_SINGLES) {
    if (source[key] !== undefined) out[key] = closeObjectSchemas(source[key]);
  }
  if (typeof source.additionalProperties === 'object') {
    out.additionalProperties = closeObjectSchemas(source.additionalProperties);
  }
  const branchesAddProperties = (['anyOf', 'oneOf'] as const).some(
    (k) => Array.isArray(source[k]) && (source[k] as unknown[]).some((b) => typeof b === 'object' && b !== null && 'properties' in b),
  );
  const composed =
    branchesAddProperties ||
    ['allOf', '$ref', 'patternProperties', 'unevaluatedProperties', 'additionalProperties'].some((k) => source[k] !== undefined);
  if (isObjectSchema(source) && !composed) out.additionalProperties = false;
  return out;
}

const EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const DATE = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** The `format`s an argument schema may use (ajv-formats is not a dependency; these are the ones tool arguments commonly use). */
export const ARGS_FORMATS = ['email', 'date', 'date-time', 'uuid', 'uri'];

/** One Ajv per policy: compiled validators live as long as the compiled rails, and no global cache grows. */
export function createAjv(): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allowUnionTypes: true,
    coerceTypes: false,
    useDefaults: false,
    // `pattern` and `patternProperties` come from tenants: match them in linear time (RE2), never
    // on V8's backtracking engine; a pattern RE2 cannot run fails the schema at policy load.
    code: { regExp: compileLinearRegExp as unknown as NonNullable<NonNullable<ConstructorParameters<typeof Ajv>[0]>['code']>['regExp'] },
  });
  // ajv-formats is not a dependency; these are the formats tool arguments commonly use.
  ajv.addFormat('email', EMAIL);
  ajv.addFormat('date', DATE);
  ajv.addFormat('date-time', (v: string) => DATE_TIME.test(v) && !Number.isNaN(Date.parse(v)));
  ajv.addFormat('uuid', UUID);
  ajv.addFormat('uri', (v: string) => {
    try {
      return new URL(v).protocol.length > 1;
    } catch {
      return false;
    }
  });
  return ajv;
}

function describe(error: ErrorObject): string {
  const where = `args${error.instancePath.replace(/\/([^/]*)/g, (_m, seg: string) => (/^\d+$/.test(seg) ? `[${seg}]` : `.${seg}`))}`;
  if (error.keyword === 'additionalProperties') {
    return `${where} has unknown property '${String((error.params as { additionalProperty: string }).additionalProperty)}'`;
  }
  if (error.keyword === 'required') {
    return `${where} is missing '${String((error.params as { missingProperty: string }).missingProperty)}'`;
  }
  return `${where} ${error.message ?? 'is invalid'}`;
}

/** Compile a tool's argument schema, or return the issue at `path`. */
export function compileArgsSchema(ajv: Ajv, schema: Record<string, unknown>, path: string): ArgsValidator | FieldIssue {
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(closeObjectSchemas(schema) as Record<string, unknown>);
  } catch (error) {
    return { path, message: `invalid JSON Schema: ${(error as Error).message}` };
  }
  return (args: unknown) => (validate(args) ? [] : (validate.errors ?? []).slice(0, 10).map(describe));
}
