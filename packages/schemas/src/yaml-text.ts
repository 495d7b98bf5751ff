import { LineCounter, isMap, isPair, isScalar, isSeq, parseDocument, type Document, type Node, type YAMLMap } from 'yaml';
import type { z } from 'zod';
import { ValidationError, type FieldIssue } from '@guardagent/errors';
import { toFieldIssues } from './parse';

/** A YAML (or JSON) file read into data, which can say where a field path is in the text. */
export interface YamlText {
  readonly source: string;
  readonly data: unknown;
  /** The line and column (1-based) of the field at `path` (`rails.tools.x.authorize[0].when`), or of its nearest parent there. */
  locate(path: string): { line: number; column: number } | null;
  /** The issues with the line and column of each path added, where the text has it. */
  withLines(issues: readonly FieldIssue[]): FieldIssue[];
}

/** `a.b[2].c` → ['a', 'b', 2, 'c'] (a key may itself hold dots: the walk below tries them joined). */
function segmentsOf(path: string): Array<string | number> {
  const out: Array<string | number> = [];
  for (const part of path.split('.')) {
    let rest = part;
    const open = rest.indexOf('[');
    if (open > 0 || open === -1) {
      out.push(open === -1 ? rest : rest.slice(0, open));
      rest = open === -1 ? '' : rest.slice(open);
    }
    while (rest.startsWith('[')) {
      const close = rest.indexOf(']');
      if (close === -1) break;
      const index = Number(rest.slice(1, close));
      out.push(Number.isInteger(index) ? index : rest.slice(1, close));
      rest = rest.slice(close + 1);
    }
  }
  return out.filter((s) => s !== '');
}

/** The deepest node on `path` (the key's node when the path ends at a key whose value is absent). */
function nodeAt(doc: Document, path: string): Node | null {
  let node: unknown = doc.contents;
  let found: Node | null = (doc.contents as Node | null) ?? null;
  const segments = segmentsOf(path);
  let i = 0;
  while (i < segments.length) {
    if (isMap(node)) {
      let advanced = false;
      // Longest run of string segments first: a key may hold dots (`rails.tools.a.b` for a tool named `a.b`).
      for (let end = segments.length; end > i && !advanced; end--) {
        const run = segments.slice(i, end);
        if (run.some((s) => typeof s !== 'string')) continue;
        const key = run.join('.');
        const pair = (node as YAMLMap).items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === key);
        if (!pair) continue;
        found = ((pair.value ?? pair.key) as Node | null) ?? found;
        // An issue about the key itself (an unknown field) points at the key.
        if (end === segments.length) found = ((pair.key as Node | null) ?? found);
        node = pair.value;
        i = end;
        advanced = true;
      }
      if (!advanced) return found;
    } else if (isSeq(node) && typeof segments[i] === 'number') {
      const item = node.items[segments[i] as number];
      if (item === undefined) return found;
      found = (item as Node | null) ?? found;
      node = item;
      i++;
    } else {
      return found;
    }
  }
  return found;
}

/**
 * Read YAML (of which JSON is a subset). A syntax error is a ValidationError with the line and
 * column of the mistake and the YAML library's excerpt with a caret.
 */
export function readYamlText(text: string, source: string): YamlText {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true });
  const error = doc.errors[0];
  if (error) {
    const at = error.linePos?.[0];
    throw new ValidationError(source, [{ path: '', message: `not valid YAML/JSON: ${error.message}`, ...(at ? { line: at.line, column: at.col } : {}) }]);
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (caught) {
    throw new ValidationError(source, [{ path: '', message: `not valid YAML/JSON: ${(caught as Error).message}` }]);
  }
  const locate = (path: string) => {
    const node = nodeAt(doc, path);
    const offset = node?.range?.[0];
    if (offset === undefined) return null;
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  return {
    source,
    data,
    locate,
    withLines: (issues) =>
      issues.map((issue) => {
        if (issue.line !== undefined) return issue;
        const at = locate(issue.path);
        return at ? { ...issue, line: at.line, column: at.column } : issue;
      }),
  };
}

/** Read a YAML/JSON file's text and validate it with `schema`; every issue names its field and line. */
export function parseYamlText<S extends z.ZodType>(schema: S, text: string, source: string): { value: z.output<S>; text: YamlText } {
  const yaml = readYamlText(text, source);
  const result = schema.safeParse(yaml.data);
  if (!result.success) throw new ValidationError(source, yaml.withLines(toFieldIssues(result.error, '', { schema, value: yaml.data })));
  return { value: result.data, text: yaml };
}
