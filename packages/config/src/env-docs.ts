import { ENV_VARIABLES } from './env-variables';

/** The markers around docs/operations.md's table of environment variables. */
const ENV_TABLE_START = '<!-- env-table:start -->';
const ENV_TABLE_END = '<!-- env-table:end -->';

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** The Markdown table of every variable in ENV_VARIABLES, in the list's order. */
function envTableMarkdown(): string {
  const rows = ENV_VARIABLES.map(
    (variable) => `| \`${variable.name}\` | ${cell(variable.default)} | ${cell(variable.readBy.join(', '))} | ${cell(variable.meaning)} |`,
  );
  return ['| variable | default | read by | meaning |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** `doc` with the table between its markers replaced by envTableMarkdown() (what `npm run docs:env` writes). */
export function withEnvTable(doc: string): string {
  const start = doc.indexOf(ENV_TABLE_START);
  const end = doc.indexOf(ENV_TABLE_END);
  if (start < 0 || end < start) throw new Error(`the document has no ${ENV_TABLE_START} … ${ENV_TABLE_END} markers`);
  return `${doc.slice(0, start + ENV_TABLE_START.length)}\n${envTableMarkdown()}\n${doc.slice(end)}`;
}
