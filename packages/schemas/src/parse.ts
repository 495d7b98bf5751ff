import type { z } from 'zod';
import { ValidationError, type FieldIssue } from '@guardagent/errors';
import { didYouMean, listNames } from './did-you-mean';

type Segment = PropertyKey;

function pathToString(path: ReadonlyArray<Segment>, prefix: string): string {
  let out = prefix;
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out ? `.${String(segment)}` : String(segment);
  }
  return out;
}

/** What zod 4 keeps of a schema's definition that the walk below reads. */
interface SchemaDef {
  type?: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: readonly z.ZodType[];
}
const defOf = (schema: z.ZodType | undefined): SchemaDef => ((schema as unknown as { _zod?: { def?: SchemaDef } } | undefined)?._zod?.def ?? {});

/** The object schemas a value at `path` may be checked against (several under a union). */
function objectShapesAt(schema: z.ZodType | undefined, path: ReadonlyArray<Segment>): Array<Record<string, z.ZodType>> {
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
      return objectShapesAt(def.innerType, path);
    case 'pipe':
      return objectShapesAt(def.in, path);
    case 'union':
      return (def.options ?? []).flatMap((option) => objectShapesAt(option, path));
    case 'object': {
      if (path.length === 0) return def.shape ? [def.shape] : [];
      const [head, ...rest] = path;
      return typeof head === 'string' && def.shape?.[head] ? objectShapesAt(def.shape[head], rest) : [];
    }
    case 'array':
      return path.length > 0 && typeof path[0] === 'number' ? objectShapesAt(def.element, path.slice(1)) : [];
    case 'record':
      return path.length > 0 ? objectShapesAt(def.valueType, path.slice(1)) : [];
    default:
      return [];
  }
}

/** The value at `path` in `value`, if there is one. */
function valueAt(value: unknown, path: ReadonlyArray<Segment>): unknown {
  let at = value;
  for (const segment of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<PropertyKey, unknown>)[segment];
  }
  return at;
}

/**
 * zod issues → field issues with dotted paths (`policy.requests`, `jobs[3].input`). Given the
 * schema and the value it read, an unknown field is named on its own path with the closest known
 * field ("did you mean 'requests'?"), and a value outside an enum with the closest allowed one.
 */
export function toFieldIssues(error: z.ZodError, prefix = '', context: { schema?: z.ZodType; value?: unknown } = {}): FieldIssue[] {
  return error.issues.flatMap((issue): FieldIssue[] => {
    if (issue.code === 'unrecognized_keys') {
      const known = [...new Set(objectShapesAt(context.schema, issue.path).flatMap((shape) => Object.keys(shape)))];
      return issue.keys.map((key) => {
        const hint = didYouMean(key, known);
        const fields = !hint && known.length > 0 ? ` (known fields: ${listNames(known)})` : '';
        return { path: pathToString([...issue.path, key], prefix), message: `unknown field '${key}'${hint}${fields}` };
      });
    }
    if (issue.code === 'invalid_value' && 'values' in issue) {
      const received = valueAt(context.value, issue.path);
      const allowed = issue.values.filter((v): v is string => typeof v === 'string');
      const hint = typeof received === 'string' ? didYouMean(received, allowed) : '';
      return [{ path: pathToString(issue.path, prefix), message: `${issue.message}${hint}` }];
    }
    if (issue.code === 'invalid_type' && context.schema && issue.path.length > 0) {
      const parent = valueAt(context.value, issue.path.slice(0, -1));
      if (parent !== null && typeof parent === 'object' && !Array.isArray(parent) && !Object.hasOwn(parent, issue.path.at(-1) as PropertyKey)) {
        return [{ path: pathToString(issue.path, prefix), message: `required field missing (expected ${issue.expected})` }];
      }
    }
    return [{ path: pathToString(issue.path, prefix), message: issue.message }];
  });
}

/** Parse or throw a ValidationError naming every offending field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what: string, prefix = ''): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(what, toFieldIssues(result.error, prefix, { schema, value }));
  return result.data;
}
