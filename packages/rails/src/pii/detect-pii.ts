import type { PiiKind } from '@guardagent/schemas';
import { decodedSourceSpan, decodings } from '../text/decodings';
import { hasNonAscii, normalizeText, sourceSpan } from '../text/normalize-text';
import { PII_PATTERNS, PII_PRIORITY, type PiiPattern } from './pii-patterns';

export const PII_KINDS: readonly PiiKind[] = ['email', 'phone', 'card', 'iban', 'ssn', 'ip', 'secret'];

export interface PiiFinding {
  kind: PiiKind;
  match: string;
  /** Offsets in the scanned text (UTF-16 code units, end exclusive). */
  start: number;
  end: number;
  /**
   * The decodings that revealed it ("base64", "base64>percent"), when the text holds it only
   * encoded; start and end then cover what was written (a base64 run whole).
   */
  decoded?: string;
}

/** Longest valid prefix of `candidate` that ends right before a separator, for candidates with glued-on words. */
function shrinkToValid(pattern: PiiPattern, candidate: string, text: string, start: number): string | null {
  for (let cut = candidate.length - 1; cut > 0; cut--) {
    const c = candidate.charCodeAt(cut);
    if (c !== 32 && c !== 45) continue;
    const prefix = candidate.slice(0, cut);
    if (pattern.valid!(prefix, text, start)) return prefix;
  }
  return null;
}

function scan(pattern: PiiPattern, text: string, out: PiiFinding[]): void {
  if (pattern.needs && !pattern.needs(text)) return;
  const regex = pattern.regex;
  regex.lastIndex = 0;
  for (let m = regex.exec(text); m !== null; m = regex.exec(text)) {
    let match = pattern.group ? m[pattern.group] : m[0];
    if (match === undefined) continue;
    const start = pattern.group ? m.index + m[0].lastIndexOf(match) : m.index;
    if (pattern.valid && !pattern.valid(match, text, start)) {
      const shorter = pattern.shrink ? shrinkToValid(pattern, match, text, start) : null;
      if (shorter === null) continue;
      match = shorter;
    }
    out.push({ kind: pattern.kind, match, start, end: start + match.length });
    if (m[0].length === 0) regex.lastIndex++;
  }
}

/**
 * Keep one finding per stretch of text. A finding inside another is dropped (the outer one is
 * redacted whole: a Luhn-valid run inside an IBAN must not leave the bank prefix visible); two
 * that cross become one finding over both, of the more specific kind (secret > card > iban > ssn >
 * email > ip > phone), so no part of either stays in clear.
 */
function resolveOverlaps(found: PiiFinding[], text: string): PiiFinding[] {
  if (found.length < 2) return found;
  found.sort((a, b) => a.start - b.start || b.end - a.end || PII_PRIORITY[a.kind] - PII_PRIORITY[b.kind]);
  const kept: PiiFinding[] = [];
  for (const f of found) {
    const last = kept[kept.length - 1];
    if (!last || f.start >= last.end) {
      kept.push(f);
      continue;
    }
    if (f.end <= last.end) continue; // inside the one kept
    const kind = PII_PRIORITY[f.kind] < PII_PRIORITY[last.kind] ? f.kind : last.kind;
    const decoded = last.decoded ?? f.decoded;
    kept[kept.length - 1] = { kind, match: text.slice(last.start, f.end), start: last.start, end: f.end, ...(decoded ? { decoded } : {}) };
  }
  return kept;
}

/**
 * Findings of the given kinds (all by default), in text order, never overlapping, with offsets
 * in `text`. The patterns run on the text as a reader sees it (normalizeText: full-width digits
 * and signs, invisible characters and non-breaking spaces folded), and each finding is mapped
 * back to the characters of `text` that produced it, so redaction covers them all. The text is
 * also read through its decodings (text/decodings: percent, HTML references, escapes, hex,
 * base64, ciphers, reversed): what only a decoding shows is a finding over what was written,
 * named by the decoding (`decoded`).
 */
export function detectPii(text: string, kinds: readonly PiiKind[] = PII_KINDS): PiiFinding[] {
  if (!text) return [];
  const plain = detectPlainPii(text, kinds);
  const decoded = decodings(text, { spans: true });
  if (decoded.length === 0) return plain;
  // What only a decoding shows (a card number in base64, an email percent-encoded in a link).
  const found = [...plain];
  for (const piece of decoded) {
    for (const f of detectPlainPii(piece.text, kinds)) {
      const span = decodedSourceSpan(piece, f.start, f.end);
      if (found.some((g) => g.kind === f.kind && g.start < span.end && span.start < g.end)) continue;
      found.push({ kind: f.kind, match: text.slice(span.start, span.end), start: span.start, end: span.end, decoded: piece.via });
    }
  }
  return found.length === plain.length ? plain : resolveOverlaps(found, text);
}

/** detectPii without decodings. */
function detectPlainPii(text: string, kinds: readonly PiiKind[]): PiiFinding[] {
  const wanted = kinds.length === PII_KINDS.length ? null : new Set(kinds);
  // Look-alike letters stay as written (a secret's letters are its own); case matters to secrets.
  // ASCII text has nothing to fold: scan it as it is.
  const normalized = hasNonAscii(text) ? normalizeText(text, { confusables: false, lowerCase: false }) : null;
  const scanned = normalized ? normalized.text : text;
  const found: PiiFinding[] = [];
  for (const pattern of PII_PATTERNS) {
    if (wanted && !wanted.has(pattern.kind)) continue;
    scan(pattern, scanned, found);
  }
  const resolved = resolveOverlaps(found, scanned);
  if (!normalized) return resolved;
  return resolved.map((f) => {
    const span = sourceSpan(normalized, text, f.start, f.end);
    return { kind: f.kind, match: text.slice(span.start, span.end), start: span.start, end: span.end };
  });
}

/** Keys longer than this are not read as a label of their value. */
const MAX_LABEL_CHARS = 64;
const LABEL_JOINER = /[-_.]+/g;
const CAMEL_HUMP = /([a-z])([A-Z])/g;
const ANY_DIGIT = /\p{Nd}/u;

/**
 * Findings in `value`, read on its own and after its label as a person reads a form field
 * (`customer_ssn` + `123456789` reads "customer ssn: 123456789", an SSN; `phone` + `020 7946 0958`
 * a phone): the union of both readings, offsets in `value`. Read on its own too, so a label cannot
 * hide a value it would otherwise not be read with ("order ref: 4111 …" is not a card, but the
 * value alone is).
 */
export function detectPiiAfterLabel(value: string, label: string | undefined, kinds: readonly PiiKind[] = PII_KINDS): PiiFinding[] {
  const alone = detectPii(value, kinds);
  // What a label lets be read (an SSN or a national phone number) has digits.
  if (label === undefined || label.length === 0 || label.length > MAX_LABEL_CHARS || !ANY_DIGIT.test(value)) return alone;
  const heading = `${label.replace(LABEL_JOINER, ' ').replace(CAMEL_HUMP, '$1 $2')}: `;
  const labelled = detectPii(heading + value, kinds).flatMap((f) => {
    if (f.end <= heading.length) return [];
    const start = Math.max(f.start, heading.length) - heading.length;
    const end = f.end - heading.length;
    return [{ kind: f.kind, match: value.slice(start, end), start, end }];
  });
  if (labelled.length === 0) return alone;
  return resolveOverlaps([...alone, ...labelled], value);
}

/** Placeholder that replaces a finding of `kind`. */
export function piiPlaceholder(kind: PiiKind): string {
  return `[REDACTED:${kind}]`;
}

/** `text` with each finding replaced by its placeholder. `findings` must come from detectPii on this text. */
export function redactFindings(text: string, findings: readonly PiiFinding[]): string {
  if (findings.length === 0) return text;
  let out = '';
  let pos = 0;
  for (const f of findings) {
    out += text.slice(pos, f.start) + piiPlaceholder(f.kind);
    pos = f.end;
  }
  return out + text.slice(pos);
}

/** `text` with PII of the given kinds replaced by `[REDACTED:<kind>]`. */
export function redactPii(text: string, kinds: readonly PiiKind[] = PII_KINDS): string {
  return redactFindings(text, detectPii(text, kinds));
}
