const CODE_MARKER = 'Generated code:';
const EHR_CALL = /\b(LoadDB|FilterDB|GetValue|SQLInterpreter)\s*\(/;

/** A JSON function-call payload (`{"cell": "..."}`) → its code; anything else unchanged. */
function unwrapCell(text: string): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') || !trimmed.includes('"cell"')) return text;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    if (parsed && typeof parsed === 'object' && typeof (parsed as { cell?: unknown }).cell === 'string') {
      return (parsed as { cell: string }).cell;
    }
  } catch {
    const m = /"cell"\s*:\s*"((?:[^"\\]|\\.)*)"/s.exec(trimmed);
    if (m) return unescapeJson(m[1]);
  }
  return text;
}

function unescapeJson(body: string): string {
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    return body.replace(/\\n/g, '\n').replace(/\\t/g, '\t').replace(/\\(["'\\])/g, '$1');
  }
}

/** Code copied raw out of a JSON log keeps `\n` escapes; a one-line text with them is unescaped. */
function unescapeFlattened(code: string): string {
  const trimmed = code.trim();
  if (trimmed.includes('\n') || !/\\n/.test(trimmed)) return code;
  return unescapeJson(trimmed);
}

/**
 * An opening fence: ```, an info string, then blank space up to its last line break. Each
 * repetition ends at a line break, so the blank run is read once (`\s*\n` backtracked through it).
 */
const OPENING_FENCE = /```[\w-]*(?:[^\S\n]*\n)+/;

/** The body of the first fenced block (up to the next ```), or `text` when it has none. */
function stripFences(text: string): string {
  const open = OPENING_FENCE.exec(text);
  if (!open) return text;
  const start = open.index + open[0].length;
  const end = text.indexOf('```', start);
  return end < 0 ? text : text.slice(start, end);
}

/**
 * The Python code EHRAgent generated, from the guard's output text: what follows `Generated code:`
 * up to the last `Answer:` line. Falls back to a fenced block, a `{"cell": ...}` payload, or the
 * whole text when it calls EHRAgent's functions; '' when no code is found.
 */
export function ehrExtractCode(outputLog: string): string {
  const text = String(outputLog ?? '').replace(/\r\n?/g, '\n');
  let code: string;
  const start = text.indexOf(CODE_MARKER);
  if (start >= 0) {
    code = text.slice(start + CODE_MARKER.length);
    const end = code.lastIndexOf('\nAnswer:');
    if (end >= 0) code = code.slice(0, end);
  } else if (/```/.test(text)) {
    code = stripFences(text);
  } else if (text.includes('"cell"') || EHR_CALL.test(text)) {
    code = text;
  } else {
    return '';
  }
  code = unescapeFlattened(unwrapCell(stripFences(code)));
  return code.replace(/^\s*\n/, '').trimEnd();
}
