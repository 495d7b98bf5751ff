const SIMPLE_ESCAPES: Record<string, string> = {
  n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', v: '\v', '0': '\0',
};

/** Python's backslash escapes in a (non-raw) literal's text. */
export function decodeEscapes(raw: string): string {
  return raw.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|\n|[\s\S])/g, (whole, esc: string) => {
    if (esc === '\n') return '';
    if (esc in SIMPLE_ESCAPES) return SIMPLE_ESCAPES[esc];
    if (esc.length > 1) {
      const code = parseInt(esc.slice(1), 16);
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return whole; // Python keeps unknown escapes as written.
  });
}

/** Where a Python string literal's text lies: its prefix letters (lower-cased: `f`, `rb`...) and the offsets of its body. */
export function stringLiteralParts(literal: string): { prefix: string; start: number; end: number } {
  let at = 0;
  while (at < literal.length && at < 3 && /[rRbBuUfF]/.test(literal[at])) at++;
  const prefix = literal.slice(0, at).toLowerCase();
  const quote = literal[at] ?? '"';
  const delimiter = literal.startsWith(quote.repeat(3), at) ? quote.repeat(3) : quote;
  const start = Math.min(literal.length, at + delimiter.length);
  // An unterminated literal (the parser marks it as an error too) runs to the end.
  const end = literal.length - delimiter.length >= start && literal.endsWith(delimiter) ? literal.length - delimiter.length : literal.length;
  return { prefix, start, end };
}

/** A Python string literal's value (escapes decoded unless raw). */
export function decodePythonString(literal: string): string {
  const { prefix, start, end } = stringLiteralParts(literal);
  const raw = literal.slice(start, end);
  return prefix.includes('r') ? raw : decodeEscapes(raw);
}
