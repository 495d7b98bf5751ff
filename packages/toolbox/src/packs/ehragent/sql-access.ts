import sqlite from 'node-sql-parser/build/sqlite.js';
import { EICU_SCHEMA } from './eicu-schema';
import { type AccessRecorder, normalizeTable } from './access-recorder';

const SQL_KEYWORDS = new Set([
  'select', 'from', 'where', 'and', 'or', 'not', 'in', 'is', 'null', 'like', 'between', 'as', 'on', 'join', 'inner',
  'left', 'right', 'outer', 'cross', 'group', 'by', 'order', 'having', 'limit', 'offset', 'distinct', 'asc', 'desc',
  'union', 'all', 'exists', 'case', 'when', 'then', 'else', 'end', 'count', 'max', 'min', 'avg', 'sum', 'datetime',
  'strftime', 'current_time', 'now', 'start', 'of', 'year', 'month', 'day', 'with', 'using', 'natural',
]);

/** Longer queries are not parsed (the parser's time grows with them): such code is unanalysable. */
const MAX_PARSED_SQL_CHARS = 10_000;
const PARSE_OPTIONS = { database: 'sqlite' } as const;
const sqlParser = new sqlite.Parser();

/**
 * The tables a query reads according to a real SQL parser (node-sql-parser, SQLite grammar), and
 * the names its WITH clauses define (those are not tables). Throws when the query does not parse.
 */
function parsedTables(sql: string): { tables: string[]; ctes: Set<string> } {
  const ast = sqlParser.astify(sql, PARSE_OPTIONS);
  const ctes = new Set<string>();
  for (const statement of Array.isArray(ast) ? ast : [ast]) {
    for (const cte of (statement as { with?: Array<{ name?: { value?: unknown } }> | null }).with ?? []) {
      if (typeof cte.name?.value === 'string') ctes.add(cte.name.value.toLowerCase());
    }
  }
  // Entries read "<action>::<schema>::<table>".
  const tables = sqlParser.tableList(sql, PARSE_OPTIONS).map((entry: string) => entry.split('::')[2] ?? '');
  return { tables, ctes };
}

/** Statements that reach data or code other than by naming a table. */
// `pragma_table_info('cost')` and the other pragma table functions are PRAGMA in a FROM clause.
const OUT_OF_REACH = /\b(?:attach|load_extension|pragma|pragma_[a-z_]{1,40}|readfile|writefile|edit)\b/i;

/**
 * The query as the analyser reads it: comments become spaces (`FROM/**\/cost` is `FROM cost`) unless kept,
 * quoted identifiers lose their quotes (`"cost"`, `` `cost` ``, `[cost]` name the table cost in
 * SQLite), and string literals are blanked. One left-to-right scan, so linear in the query.
 */
function readableSql(sql: string, keepComments = false): string {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    const next = sql[i + 1];
    if (c === '-' && next === '-' && !keepComments) {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end;
      out += ' ';
    } else if (c === '/' && next === '*' && !keepComments) {
      const end = sql.indexOf('*/', i + 2);
      i = end === -1 ? sql.length : end + 2;
      out += ' ';
    } else if (c === "'") {
      // A string literal ('' is a quote inside it).
      let j = i + 1;
      while (j < sql.length && !(sql[j] === "'" && sql[j + 1] !== "'")) j += sql[j] === "'" ? 2 : 1;
      i = j + 1;
      out += ' ';
    } else if (c === '"' || c === '`' || c === '[') {
      const close = c === '[' ? ']' : c;
      const end = sql.indexOf(close, i + 1);
      const name = end === -1 ? sql.slice(i + 1) : sql.slice(i + 1, end);
      i = end === -1 ? sql.length : end + 1;
      out += ` ${name.replace(/[^A-Za-z0-9_.*]/g, '_')} `;
    } else {
      out += c;
      i += 1;
    }
  }
  return out;
}

/** A schema before a table after FROM or JOIN: `FROM main.cost`, `JOIN "main"."lab"` (quotes already dropped). */
const SCHEMA_AFTER_FROM = /\b(from|join)(\s+)[A-Za-z_]\w*\s*\.\s*(?=[A-Za-z_])/gi;
/** A schema before a table and column: `main.cost.cost`, `"main"."cost"."chargetime"`. */
const SCHEMA_BEFORE_COLUMN = /\b[A-Za-z_]\w*\s*\.\s*(?=[A-Za-z_]\w*\s*\.\s*[A-Za-z_*])/g;

/**
 * Names read without their schema (`main.cost` is the table cost, `main.cost.cost` its column
 * cost): SQLite's schema prefix names the database, not the table. The analysis reads the table.
 */
function withoutSchemas(text: string): string {
  return text.replace(SCHEMA_AFTER_FROM, '$1$2').replace(SCHEMA_BEFORE_COLUMN, '');
}

/**
 * Tables and columns a SQL query (as passed to EHRAgent's SQLInterpreter) reads. Subqueries are
 * flattened: `alias.column` resolves through every FROM/JOIN alias; a bare identifier counts for each
 * referenced table whose schema has that column; `select *` / `t.*` reads every column (`*`).
 * Any eICU table named anywhere in the query outside a string literal counts as read, whatever
 * clause (or comment: engines differ on what a comment is) names it. Returns
 * why the query cannot be fully analysed (empty when it can).
 */
export function sqlAccess(sql: string, recorder: AccessRecorder): string[] {
  const problems: string[] = [];
  if (OUT_OF_REACH.test(sql)) problems.push('the SQL query uses ATTACH, PRAGMA or an extension function, which reach data other than by table name');
  for (const word of readableSql(sql, true).toLowerCase().match(/[a-z_][a-z0-9_]*/g) ?? []) if (Object.hasOwn(EICU_SCHEMA, word)) recorder.touch(word);
  let ctes = new Set<string>();
  if (sql.length > MAX_PARSED_SQL_CHARS) {
    problems.push(`the SQL query is longer than ${MAX_PARSED_SQL_CHARS} characters`);
  } else {
    try {
      const parsed = parsedTables(sql);
      ctes = parsed.ctes;
      for (const name of parsed.tables) {
        const table = normalizeTable(name);
        if (table && !ctes.has(table)) recorder.touch(table);
      }
    } catch {
      problems.push('the SQL query does not parse as SQLite');
    }
  }
  const text = withoutSchemas(readableSql(sql));
  const aliases = new Map<string, string>();
  const fromRe = /\b(?:from|join)\s+([A-Za-z_]\w*)(?:\s+(?:as\s+)?([A-Za-z_]\w*))?/gi;
  for (let m = fromRe.exec(text); m; m = fromRe.exec(text)) {
    const table = normalizeTable(m[1]);
    if (!table || SQL_KEYWORDS.has(table) || ctes.has(table)) continue;
    recorder.touch(table);
    aliases.set(table, table);
    const alias = m[2]?.toLowerCase();
    if (alias && !SQL_KEYWORDS.has(alias)) aliases.set(alias, table);
  }
  const tables = [...new Set(aliases.values())];
  const qualified = /\b([A-Za-z_]\w*)\s*\.\s*([A-Za-z_]\w*|\*)/g;
  for (let m = qualified.exec(text); m; m = qualified.exec(text)) {
    const table = aliases.get(m[1].toLowerCase());
    if (table) recorder.column(table, m[2].toLowerCase());
  }
  const bare = text.replace(fromRe, ' ').replace(qualified, ' ');
  for (const m of bare.matchAll(/(\(\s*)?\*|\b[A-Za-z_]\w*\b/g)) {
    const word = m[0].toLowerCase();
    if (word.endsWith('*')) {
      if (!m[1]) for (const t of tables) recorder.column(t, '*'); // count(*) reads no column
      continue;
    }
    if (SQL_KEYWORDS.has(word)) continue;
    for (const t of tables) if (EICU_SCHEMA[t]?.includes(word)) recorder.column(t, word);
  }
  return problems;
}
