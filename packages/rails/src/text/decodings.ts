/**
 * Text hidden in an encoding a reader (or a model) decodes on sight: percent-encoding, HTML
 * character references and markup (comments opened, tags read as spaces), `\x`/`\u` escapes, hex
 * and base64 runs, rot13 and the other Caesar shifts, Atbash, and reversed text. Each decoding is
 * tried only where it is plausible (a cheap gate: escapes present, a long run of the alphabet,
 * cipher words counted), runs in one pass, and never yields more characters than it reads, so
 * reading a text through its decodings (nested up to MAX_DEPTH deep, within a budget of decoded
 * characters) stays linear in the text. The detectors read what the decodings reveal as they
 * read the text itself and say which decoding revealed it.
 */

/** `charCodeAt.call(s, i)` rather than `s.charCodeAt(i)`: see injection/intent-scan's charCodeAt (why it stays fast). */
const charCodeAt = String.prototype.charCodeAt;

/** A text revealed by one decoding (or a chain of them) of part of the input. */
export interface DecodedText {
  /** What was revealed. */
  text: string;
  /** The decodings applied, outermost first, joined by `>` ("base64", "base64>percent"). */
  via: string;
  /** The span of the input that was decoded (UTF-16 units, end exclusive). */
  start: number;
  end: number;
  /**
   * With `spans`: for each unit of `text`, the span of the input it was read from (a base64 run
   * maps every unit to the whole run: a finding inside is redacted with the run).
   */
  sourceStart?: Uint32Array;
  sourceEnd?: Uint32Array;
}

export interface DecodeOptions {
  /** Nested decodings (base64 of percent-encoded text…) at most this deep. Default MAX_DEPTH. */
  maxDepth?: number;
  /** Fill sourceStart/sourceEnd (PII: to redact what a decoding revealed). Default false. */
  spans?: boolean;
  /**
   * Which whole-text transforms (ciphers, reversal) to try on the input itself, when the caller
   * has counted cipher words already (the injection rail's scan); default: count them here.
   */
  ciphers?: readonly CipherName[];
  /**
   * Whether to look for hex and base64 runs in the input itself: the caller's own scan may have
   * told (the injection rail's); by default a quick pass tells.
   */
  runs?: boolean;
}

/** Nesting bound: base64 of percent-encoded HTML references is three deep. */
export const MAX_DEPTH = 3;
/** Decoded characters read in all, at most this many per input character plus DECODE_SLACK. */
const BUDGET_PER_CHAR = 3;
const DECODE_SLACK = 4096;
/** Decoded texts kept per input, at most. */
const MAX_PIECES = 64;

/** A piece before it is placed: local spans are relative to the text it was decoded from. */
interface Piece {
  text: string;
  name: string;
  start: number;
  end: number;
  /** Per unit of `text`, the span of the decoded-from text it came from (only with spans). */
  from?: Uint32Array;
  to?: Uint32Array;
}

// ---------------------------------------------------------------------------------------------
// UTF-8 and small helpers

const isAlnum = (c: number) => (c >= 48 && c <= 57) || ((c | 0x20) >= 97 && (c | 0x20) <= 122);
const hexValue = (c: number): number => {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 0x20;
  return l >= 97 && l <= 102 ? l - 87 : -1;
};

/**
 * Bytes read as UTF-8 (invalid sequences as U+FFFD), appended to `out` with the span of each
 * character's first and last byte (byteFrom/byteTo: the input span of each byte).
 */
class Utf8Writer {
  text = '';
  readonly from: number[] | null;
  readonly to: number[] | null;
  invalid = 0;
  private readonly pending: number[] = [];
  private readonly pendingFrom: number[] = [];
  private readonly pendingTo: number[] = [];

  constructor(spans: boolean) {
    this.from = spans ? [] : null;
    this.to = spans ? [] : null;
  }

  char(code: number, from: number, to: number): void {
    if (this.pending.length > 0) this.flush();
    this.push(code < 0x10000 ? String.fromCharCode(code) : String.fromCodePoint(code), from, to);
  }

  /** input[from, to) as it is (no bytes pending are cut by it). */
  run(input: string, from: number, to: number): void {
    if (to <= from) return;
    if (this.pending.length > 0) this.flush();
    this.text += input.slice(from, to);
    if (this.from && this.to) for (let k = from; k < to; k++) {
      this.from.push(k);
      this.to.push(k + 1);
    }
  }

  byte(b: number, from: number, to: number): void {
    this.pending.push(b);
    this.pendingFrom.push(from);
    this.pendingTo.push(to);
  }

  private push(s: string, from: number, to: number): void {
    this.text += s;
    if (this.from && this.to) for (let i = 0; i < s.length; i++) {
      this.from.push(from);
      this.to.push(to);
    }
  }

  flush(): void {
    const bytes = this.pending;
    let i = 0;
    while (i < bytes.length) {
      const b = bytes[i]!;
      let need = 0;
      let cp = 0;
      if (b < 0x80) cp = b;
      else if (b >= 0xc2 && b < 0xe0) {
        need = 1;
        cp = b & 0x1f;
      } else if (b >= 0xe0 && b < 0xf0) {
        need = 2;
        cp = b & 0x0f;
      } else if (b >= 0xf0 && b < 0xf5) {
        need = 3;
        cp = b & 0x07;
      } else {
        this.invalid++;
        this.push('\uFFFD', this.pendingFrom[i]!, this.pendingTo[i]!);
        i++;
        continue;
      }
      let ok = i + need < bytes.length;
      for (let k = 1; ok && k <= need; k++) {
        const c = bytes[i + k];
        if (c === undefined || (c & 0xc0) !== 0x80) ok = false;
        else cp = (cp << 6) | (c & 0x3f);
      }
      if (!ok || (need === 2 && cp < 0x800) || (need === 3 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff)) {
        this.invalid++;
        this.push('\uFFFD', this.pendingFrom[i]!, this.pendingTo[i]!);
        i++;
        continue;
      }
      this.push(String.fromCodePoint(cp), this.pendingFrom[i]!, this.pendingTo[i + need]!);
      i += need + 1;
    }
    this.pending.length = 0;
    this.pendingFrom.length = 0;
    this.pendingTo.length = 0;
  }

  piece(name: string, start: number, end: number): Piece {
    this.flush();
    const piece: Piece = { text: this.text, name, start, end };
    if (this.from && this.to) {
      piece.from = Uint32Array.from(this.from);
      piece.to = Uint32Array.from(this.to);
    }
    return piece;
  }
}

/** Share of units that are not control characters (tab and newlines count as text), and of letters. */
function textLike(text: string): { printable: number; letters: number } {
  if (text.length === 0) return { printable: 0, letters: 0 };
  let printable = 0;
  let letters = 0;
  for (let i = 0; i < text.length; i++) {
    const c = charCodeAt.call(text, i);
    if (c === 0xfffd) continue;
    if (c >= 32 ? c !== 127 && !(c >= 0x80 && c < 0xa0) : c === 9 || c === 10 || c === 13) printable++;
    if ((c | 0x20) >= 97 && (c | 0x20) <= 122) letters++;
    else if (c >= 0xc0 && c !== 0xfffd && !(c >= 0x2000 && c <= 0x2bff)) letters++;
  }
  return { printable: printable / text.length, letters: letters / text.length };
}

/** A decoded run that reads as text: almost all printable, mostly letters and spaces. */
function readsAsText(text: string, minLetters = 0.5): boolean {
  const { printable, letters } = textLike(text);
  return printable >= 0.9 && letters >= minLetters;
}

// ---------------------------------------------------------------------------------------------
// Percent-encoding

/** At least this many %XX escapes before a text is read percent-decoded (one: "jane%40example.com"). */
const MIN_PERCENT_ESCAPES = 1;
/** At least this many \x or \u escapes before a text is read unescaped. */
const MIN_ESCAPES = 3;

function countPercentEscapes(text: string, atLeast: number): boolean {
  let n = 0;
  for (let i = text.indexOf('%'); i >= 0 && i + 2 < text.length; i = text.indexOf('%', i + 1)) {
    if (hexValue(charCodeAt.call(text, i + 1)) >= 0 && hexValue(charCodeAt.call(text, i + 2)) >= 0 && ++n >= atLeast) return true;
  }
  return false;
}

/** `text` with %XX read as UTF-8 bytes and `+` as a space (form encoding). */
function percentDecode(text: string, spans: boolean): Piece | null {
  if (!countPercentEscapes(text, MIN_PERCENT_ESCAPES)) return null;
  const out = new Utf8Writer(spans);
  let copied = 0;
  for (let i = 0; i < text.length; i++) {
    const c = charCodeAt.call(text, i);
    if (c === 37 && i + 2 < text.length) {
      const hi = hexValue(charCodeAt.call(text, i + 1));
      const lo = hexValue(charCodeAt.call(text, i + 2));
      if (hi >= 0 && lo >= 0) {
        out.run(text, copied, i);
        out.byte(hi * 16 + lo, i, i + 3);
        i += 2;
        copied = i + 1;
      }
    } else if (c === 43) {
      out.run(text, copied, i);
      out.char(32, i, i + 1);
      copied = i + 1;
    }
  }
  out.run(text, copied, text.length);
  return out.piece('percent', 0, text.length);
}

// ---------------------------------------------------------------------------------------------
// HTML: character references, comments and tags

/**
 * Named character references that spell letters and the signs of ordinary text. Styled letters
 * (`&iopf;`, `&iscr;`, `&ifr;`) and accented ones (`&eacute;`) are read by rule below; other
 * names are left as written.
 */
const NAMED: Readonly<Record<string, string>> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', ensp: ' ', emsp: ' ', thinsp: ' ', Tab: '\t', NewLine: '\n',
  excl: '!', num: '#', dollar: '$', percnt: '%', lpar: '(', rpar: ')', ast: '*', plus: '+', comma: ',', period: '.', sol: '/',
  colon: ':', semi: ';', equals: '=', quest: '?', commat: '@', lsqb: '[', lbrack: '[', bsol: '\\', rsqb: ']', rbrack: ']',
  Hat: '^', lowbar: '_', grave: '`', lcub: '{', lbrace: '{', verbar: '|', vert: '|', rcub: '}', rbrace: '}', hyphen: '-', dash: '-',
  ndash: '\u2013', mdash: '\u2014', hellip: '\u2026', lsquo: '\u2018', rsquo: '\u2019', ldquo: '\u201c', rdquo: '\u201d',
  laquo: '\u00ab', raquo: '\u00bb', middot: '\u00b7', bull: '\u2022', shy: '', zwj: '', zwnj: '', lrm: '', rlm: '',
  szlig: 'ss', aelig: 'ae', AElig: 'AE', oelig: 'oe', OElig: 'OE', eth: 'd', ETH: 'D', thorn: 'th', THORN: 'TH', oslash: 'o', Oslash: 'O',
  dotless: 'i', imath: 'i', jmath: 'j', inodot: 'i',
};
/** Accent names: `&eacute;` is an e (the detectors drop accents anyway). */
const ACCENTED = /^([a-zA-Z])(?:acute|grave|circ|uml|tilde|ring|cedil|caron|macr|breve|ogon|dot|dblac|strok|slash)$/;
/** Styled letters of Unicode's letterlike blocks: `&iopf;` 𝕚, `&iscr;` 𝒾, `&ifr;` 𝔦. */
const STYLED = /^([a-zA-Z])(?:opf|scr|fr)$/;
/** Greek letters by name (&alpha; …), read as their letter: look-alike folding maps them further. */
const GREEK = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega'.split(' ');

function namedReference(name: string): string | undefined {
  const known = NAMED[name];
  if (known !== undefined) return known;
  const accented = ACCENTED.exec(name) ?? STYLED.exec(name);
  if (accented) return accented[1];
  const greek = GREEK.indexOf(name.toLowerCase());
  if (greek >= 0) {
    const code = 0x3b1 + greek + (greek >= 17 ? 1 : 0); // final sigma sits between rho and sigma
    return String.fromCharCode(name[0] === name[0]!.toUpperCase() ? code - 0x20 : code);
  }
  return undefined;
}

/** Chinese, Japanese and Thai, written without spaces between words. */
const isUnspacedScript = (c: number) => (c >= 0x3040 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x9fff) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0x0e00 && c <= 0x0e7f);
/** Longest tag read as a space (a longer `<…>` stays as written). */
const MAX_TAG_CHARS = 256;
const MAX_REFERENCE_NAME = 32;

/** References every page is full of: read as they are, they hide nothing. */
const PLAIN_REFERENCES = new Set(['amp', 'lt', 'gt', 'quot', 'apos', 'nbsp', 'copy', 'reg', 'trade', 'mdash', 'ndash', 'hellip', 'rsquo', 'lsquo', 'rdquo', 'ldquo', 'laquo', 'raquo', 'middot', 'bull']);
const TABLE_CELL = /<t[dh][\s>]/i;
/** At most this many `&` and `<` are looked at for markup worth reading. */
const MAX_MARKUP_PROBES = 256;

/**
 * Whether `text` has markup that hides words from a reader of the raw text: a numeric character
 * reference, a named one other than the everyday few, a comment, a table's cells, or a tag inside
 * a word ("ig<b></b>nore"). Other markup (tags between words, `&amp;`) is read well enough as it is.
 */
function hasMarkup(text: string): boolean {
  if (text.includes('&#') || text.includes('<!--')) return true;
  // Cells of a table: their words read apart from the markup, and across cells.
  if (text.includes('<') && TABLE_CELL.test(text)) return true;
  let amp = text.indexOf('&');
  for (let n = 0; amp >= 0 && n < MAX_MARKUP_PROBES; n++, amp = text.indexOf('&', amp + 1)) {
    const semi = text.indexOf(';', amp);
    if (semi > amp + 1 && semi - amp <= MAX_REFERENCE_NAME) {
      const name = text.slice(amp + 1, semi);
      if (!PLAIN_REFERENCES.has(name) && namedReference(name) !== undefined) return true;
    }
  }
  let lt = text.indexOf('<');
  for (let n = 0; lt > 0 && n < MAX_MARKUP_PROBES; n++, lt = text.indexOf('<', lt + 1)) {
    if (!isAlnum(charCodeAt.call(text, lt - 1))) continue;
    const close = text.indexOf('>', lt);
    if (close > lt && close - lt <= MAX_TAG_CHARS && isAlnum(charCodeAt.call(text, close + 1))) return true;
  }
  return false;
}

/**
 * HTML read as a page's reader sees it: character references decoded (numeric and named),
 * comments opened (their text read as any other), tags read as spaces (so cells and blocks of a
 * table read as words apart, not run together).
 */
function htmlDecode(text: string, spans: boolean): Piece | null {
  if (!hasMarkup(text)) return null;
  const out = new Utf8Writer(spans);
  const n = text.length;
  let copied = 0;
  /** text[from, to) reads as `code` (or as nothing when code < 0). */
  const emit = (from: number, to: number, code: number) => {
    out.run(text, copied, from);
    if (code >= 0) out.char(code, from, to);
    copied = to;
  };
  for (let i = 0; i < n; i++) {
    const c = charCodeAt.call(text, i);
    if (c === 38) {
      // &#105; &#x69; &name;
      let j = i + 1;
      if (charCodeAt.call(text, j) === 35) {
        j++;
        const hex = (charCodeAt.call(text, j) | 0x20) === 120;
        if (hex) j++;
        let value = 0;
        const digitsFrom = j;
        while (j < n && j - digitsFrom < 8) {
          const d = hex ? hexValue(charCodeAt.call(text, j)) : charCodeAt.call(text, j) - 48;
          if (d < 0 || d > (hex ? 15 : 9)) break;
          value = value * (hex ? 16 : 10) + d;
          j++;
        }
        if (j > digitsFrom) {
          if (charCodeAt.call(text, j) === 59) j++;
          emit(i, j, value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff) || value === 0 ? 0xfffd : value);
          i = j - 1;
        }
      } else {
        while (j < n && j - i <= MAX_REFERENCE_NAME && isAlnum(charCodeAt.call(text, j))) j++;
        if (j > i + 1 && charCodeAt.call(text, j) === 59) {
          const named = namedReference(text.slice(i + 1, j));
          if (named !== undefined) {
            emit(i, j + 1, -1);
            for (const ch of named) out.char(ch.codePointAt(0)!, i, j + 1);
            i = j;
          }
        }
      }
    } else if (c === 60) {
      // <!-- and --> open a comment's text; <tag …> reads as a space.
      if (text.startsWith('<!--', i)) {
        emit(i, i + 4, 32);
        i += 3;
        continue;
      }
      const next = charCodeAt.call(text, i + 1);
      if (next === 47 || ((next | 0x20) >= 97 && (next | 0x20) <= 122)) {
        const close = text.indexOf('>', i + 1);
        const lt = text.indexOf('<', i + 1);
        if (close > 0 && close - i <= MAX_TAG_CHARS && (lt < 0 || lt > close)) {
          // Between two characters of a script written without spaces a tag reads as nothing.
          emit(i, close + 1, isUnspacedScript(charCodeAt.call(text, i - 1)) && isUnspacedScript(charCodeAt.call(text, close + 1)) ? -1 : 32);
          i = close;
        }
      }
    } else if (c === 45 && text.startsWith('-->', i)) {
      emit(i, i + 3, 32);
      i += 2;
    }
  }
  if (copied === 0) return null;
  out.run(text, copied, n);
  return out.piece('html', 0, n);
}

// ---------------------------------------------------------------------------------------------
// Escapes: \x69 \u0069 \u{69}

function hasEscapes(text: string): boolean {
  let n = 0;
  for (let i = text.indexOf('\\'); i >= 0; i = text.indexOf('\\', i + 1)) {
    const k = charCodeAt.call(text, i + 1) | 0x20;
    if ((k === 120 || k === 117) && hexValue(charCodeAt.call(text, i + 2)) >= 0 && ++n >= MIN_ESCAPES) return true;
  }
  return false;
}

function escapesDecode(text: string, spans: boolean): Piece | null {
  if (!hasEscapes(text)) return null;
  const out = new Utf8Writer(spans);
  const n = text.length;
  let copied = 0;
  for (let i = 0; i < n; i++) {
    if (charCodeAt.call(text, i) !== 92 || i + 3 >= n) continue;
    const k = charCodeAt.call(text, i + 1);
    if (k === 120 || k === 88) {
      const hi = hexValue(charCodeAt.call(text, i + 2));
      const lo = hexValue(charCodeAt.call(text, i + 3));
      if (hi >= 0 && lo >= 0) {
        // \xNN are bytes (UTF-8 sequences spelled byte by byte).
        out.run(text, copied, i);
        out.byte(hi * 16 + lo, i, i + 4);
        i += 3;
        copied = i + 1;
      }
    } else if (k === 117) {
      let j = i + 2;
      const braced = charCodeAt.call(text, j) === 123;
      if (braced) j++;
      let value = 0;
      const from = j;
      while (j < n && j - from < (braced ? 6 : 4) && hexValue(charCodeAt.call(text, j)) >= 0) value = value * 16 + hexValue(charCodeAt.call(text, j++));
      if ((braced && j > from && charCodeAt.call(text, j) === 125) || (!braced && j - from === 4)) {
        if (braced) j++;
        out.run(text, copied, i);
        out.char(value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff) ? 0xfffd : value, i, j);
        i = j - 1;
        copied = j;
      }
    }
  }
  out.run(text, copied, n);
  return out.piece('escapes', 0, n);
}

// ---------------------------------------------------------------------------------------------
// Hex and base64 runs

/** A hex run decodes to at least this many bytes ("69676e6f7265" is six: too short to say anything). */
const MIN_HEX_BYTES = 8;
/** At most this many runs of each kind are decoded per text. */
const MAX_RUNS = 32;

/**
 * Runs of hex bytes: pairs of hex digits, each optionally led by `0x` or followed by one of
 * ` :,-` ("69676e6f7265", "69 67 6e", "0x69,0x67", "69:67:6e"). One pass; a run that does not
 * read as text (a hash, a UUID, a MAC address: bytes of every value) is dropped.
 */
function hexRuns(text: string, spans: boolean): Piece[] {
  const out: Piece[] = [];
  const n = text.length;
  let i = 0;
  while (i < n && out.length < MAX_RUNS) {
    // A run starts at a hex digit (or 0x) not preceded by a letter or digit.
    const c = charCodeAt.call(text, i);
    const prev = i > 0 ? charCodeAt.call(text, i - 1) : 32;
    const prevWord = (prev | 0x20) >= 97 && (prev | 0x20) <= 122 ? true : prev >= 48 && prev <= 57;
    if (hexValue(c) < 0 || prevWord) {
      i++;
      continue;
    }
    const w = new Utf8Writer(spans);
    let j = i;
    let bytes = 0;
    let end = i;
    let hexLetter = false;
    let sep = -1;
    for (;;) {
      let k = j;
      if (charCodeAt.call(text, k) === 48 && (charCodeAt.call(text, k + 1) | 0x20) === 120) k += 2;
      const hi = hexValue(charCodeAt.call(text, k));
      const lo = hexValue(charCodeAt.call(text, k + 1));
      if (hi < 0 || lo < 0) break;
      if (hi > 9 || lo > 9) hexLetter = true;
      w.byte(hi * 16 + lo, j, k + 2);
      bytes++;
      end = k + 2;
      j = k + 2;
      const s = charCodeAt.call(text, j);
      // One separator, the same throughout the run.
      if ((s === 32 || s === 58 || s === 44 || s === 45) && (sep < 0 || sep === s) && hexValue(charCodeAt.call(text, j + 1)) >= 0) {
        sep = s;
        j++;
      }
    }
    const after = charCodeAt.call(text, end);
    const endsClean = !((after | 0x20) >= 97 && (after | 0x20) <= 122);
    if (bytes >= MIN_HEX_BYTES && endsClean) {
      const piece = w.piece('hex', i, end);
      if (w.invalid === 0 && readsAsText(piece.text, 0.6) && (hexLetter || piece.text.includes(' '))) out.push(piece);
    }
    i = Math.max(end, i + 1);
  }
  return out;
}

const isBase64Char = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47 || c === 45 || c === 95;
/** A base64 run is at least this long (16 characters are 12 bytes). */
const MIN_BASE64_CHARS = 16;
const MAX_BASE64_CHARS = 65_536;

/**
 * Runs of the base64 alphabet (standard or URL-safe) with upper and lower case or digits, that
 * decode to valid UTF-8 reading as text. Image headers and other binary payloads do not.
 */
function base64Runs(text: string, spans: boolean): Piece[] {
  const out: Piece[] = [];
  const n = text.length;
  let i = 0;
  let candidates = 0;
  while (i < n && candidates < MAX_RUNS) {
    if (!isBase64Char(charCodeAt.call(text, i))) {
      i++;
      continue;
    }
    const start = i;
    let upper = false;
    let lowerOrDigit = false;
    while (i < n && isBase64Char(charCodeAt.call(text, i))) {
      const c = charCodeAt.call(text, i);
      if (c >= 65 && c <= 90) upper = true;
      else if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) lowerOrDigit = true;
      i++;
    }
    const end = i;
    while (i < n && charCodeAt.call(text, i) === 61 && i - end < 2) i++;
    if (end - start < MIN_BASE64_CHARS || end - start > MAX_BASE64_CHARS || !upper || !lowerOrDigit) continue;
    candidates++;
    const run = text.slice(start, end).replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Buffer.from(run, 'base64');
    const w = new Utf8Writer(false);
    for (const b of bytes) w.byte(b, start, i);
    const piece = w.piece('base64', start, i);
    // Text, or text encoded once more (percent escapes and references are mostly not letters).
    if (w.invalid > 0 || piece.text.length < 8 || !(readsAsText(piece.text, 0.4) || (piece.text.length >= 16 && readsAsText(piece.text, 0)))) continue;
    if (spans) {
      piece.from = new Uint32Array(piece.text.length).fill(start);
      piece.to = new Uint32Array(piece.text.length).fill(i);
    }
    out.push(piece);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Ciphers and reversed text

export type CipherName = `rot${number}` | 'atbash' | 'reversed';

/**
 * Words of ordinary text and of instructions, four letters or more (and the three commonest
 * three-letter words for rot13, the usual cipher), whose enciphered forms tell a cipher apart:
 * "vtaber nyy cerivbhf vafgehpgvbaf" has four rot13 forms of them.
 */
const CIPHER_WORDS = [
  'ignore', 'disregard', 'forget', 'instructions', 'previous', 'prior', 'above', 'system', 'prompt', 'rules', 'reveal', 'password',
  'secret', 'your', 'user', 'tell', 'send', 'with', 'this', 'that', 'from', 'have', 'what', 'must', 'only', 'assistant', 'instead',
  'print', 'repeat', 'output', 'data', 'email', 'visit', 'link', 'please', 'will', 'should', 'they', 'them', 'their', 'there',
  'about', 'which', 'when', 'were', 'been', 'would', 'could', 'into', 'after', 'before', 'every', 'answer', 'respond', 'now',
];
const ROT13_SHORT_WORDS = ['the', 'and', 'you', 'all'];
const REVERSED_SHORT_WORDS = ['the', 'and', 'you', 'all', 'now'];
/** At least this many cipher words (not all the same) before a text is read deciphered. */
const MIN_CIPHER_HITS = 2;

const shiftWord = (word: string, by: number) => word.replace(/[a-z]/g, (ch) => String.fromCharCode(97 + ((charCodeAt.call(ch, 0) - 97 + by) % 26)));
const atbashWord = (word: string) => word.replace(/[a-z]/g, (ch) => String.fromCharCode(219 - charCodeAt.call(ch, 0)));
const reverseWord = (word: string) => [...word].reverse().join('');

/** Enciphered word → the ciphers it is a form of (a word may be the form of two). Built on first use. */
let cipherTable: Map<string, CipherName[]> | undefined;
/** The longest enciphered word. */
let longestCipherWord = 0;

function cipherIndex(): Map<string, CipherName[]> {
  cipherTable ??= cipherIndexOf([]);
  return cipherTable;
}

/**
 * The enciphered forms of the common English words above (every Caesar shift, Atbash, reversed)
 * and of `moreWords` (lower-case a-z, four letters or more: rot13, Atbash and reversed only, the
 * usual ciphers), each mapped to the ciphers it is a form of. A form that is itself one of the
 * words is left out.
 */
export function cipherIndexOf(moreWords: Iterable<string>): Map<string, CipherName[]> {
  const index = new Map<string, CipherName[]>();
  const more = [...moreWords].filter((word) => word.length >= 4 && /^[a-z]+$/.test(word));
  const plain = new Set([...CIPHER_WORDS, ...ROT13_SHORT_WORDS, ...REVERSED_SHORT_WORDS, ...more]);
  const add = (word: string, cipher: CipherName) => {
    if (plain.has(word)) return;
    const ciphers = index.get(word);
    if (!ciphers) index.set(word, [cipher]);
    else if (!ciphers.includes(cipher)) ciphers.push(cipher);
    longestCipherWord = Math.max(longestCipherWord, word.length);
  };
  for (const word of CIPHER_WORDS) {
    for (let by = 1; by < 26; by++) add(shiftWord(word, by), `rot${by}`);
    add(atbashWord(word), 'atbash');
    add(reverseWord(word), 'reversed');
  }
  for (const word of more) {
    add(shiftWord(word, 13), 'rot13');
    add(atbashWord(word), 'atbash');
    add(reverseWord(word), 'reversed');
  }
  for (const word of ROT13_SHORT_WORDS) add(shiftWord(word, 13), 'rot13');
  for (const word of REVERSED_SHORT_WORDS) add(reverseWord(word), 'reversed');
  return index;
}

/** At most this many words are looked at for cipher words (the first ones: a cipher shows early). */
const MAX_CIPHER_SCAN_WORDS = 20_000;

/**
 * Counts cipher words as a text is read, and tells which ciphers it plausibly is written in:
 * those with MIN_CIPHER_HITS enciphered forms of common words or more (not one word over and
 * over), most first, at most two.
 */
export class CipherCount {
  private counts: Map<CipherName, { hits: number; first: string }> | null = null;

  add(word: string, ciphers: readonly CipherName[]): void {
    this.counts ??= new Map();
    for (const cipher of ciphers) {
      const seen = this.counts.get(cipher);
      if (!seen) this.counts.set(cipher, { hits: 1, first: word });
      else if (seen.hits > 1 || seen.first !== word) seen.hits++;
    }
  }

  likely(): CipherName[] {
    if (this.counts === null) return [];
    return [...this.counts]
      .filter(([, c]) => c.hits >= MIN_CIPHER_HITS)
      .sort((a, b) => b[1].hits - a[1].hits)
      .slice(0, 2)
      .map(([name]) => name);
  }
}

/**
 * The ciphers (Caesar shifts, Atbash, reversal) that `text` plausibly is written in: by its
 * enciphered common words (see CipherCount) and by where its vowels went (cipherByLetters).
 * Words of letters a-z are read, in either case.
 */
export function likelyCiphers(text: string): CipherName[] {
  const index = cipherIndex();
  cipherHashes ??= hashWords(index.keys());
  const hashes = cipherHashes;
  let count: CipherCount | null = null;
  const letters = new Uint32Array(26);
  const n = text.length;
  let words = 0;
  // Letters outside a-z (accented ones): where they are many, a-z alone says nothing of vowels.
  let others = 0;
  for (let i = 0; i < n && words < MAX_CIPHER_SCAN_WORDS; ) {
    const first = charCodeAt.call(text, i) | 0x20;
    if (first < 97 || first > 122) {
      if (first >= 0xc0) others++;
      i++;
      continue;
    }
    const start = i;
    let h = HASH_SEED;
    for (let c = first; i < n && c >= 97 && c <= 122; c = i < n ? charCodeAt.call(text, i) | 0x20 : 0) {
      h = Math.imul(h ^ c, 16777619);
      letters[c - 97]!++;
      i++;
    }
    words++;
    const len = i - start;
    if (len < 3 || len > longestCipherWord || !hashesHave(hashes, h)) continue;
    const word = text.slice(start, i).toLowerCase();
    const ciphers = index.get(word);
    if (ciphers) {
      count ??= new CipherCount();
      count.add(word, ciphers);
    }
  }
  const likely = count ? count.likely() : [];
  let ascii = 0;
  for (let k = 0; k < 26; k++) ascii += letters[k]!;
  const shifted = others * 20 < ascii ? cipherByLetters(letters) : null;
  if (shifted && !likely.includes(shifted)) likely.push(shifted);
  return likely;
}

const HASH_SEED = 2166136261 | 0;
/** FNV-1a hashes of the cipher words, in an open-addressing table (0 is empty). */
let cipherHashes: Int32Array | undefined;
function hashWords(words: Iterable<string>): Int32Array {
  const list = [...words];
  let size = 1024;
  while (size < list.length * 4) size *= 2;
  const table = new Int32Array(size);
  for (const w of list) {
    let h = HASH_SEED;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ charCodeAt.call(w, i), 16777619);
    const key = h | 1;
    let at = key & (size - 1);
    while (table[at] !== 0 && table[at] !== key) at = (at + 1) & (size - 1);
    table[at] = key;
  }
  return table;
}
function hashesHave(table: Int32Array, h: number): boolean {
  const mask = table.length - 1;
  const key = h | 1;
  for (let at = key & mask; ; at = (at + 1) & mask) {
    const v = table[at]!;
    if (v === key) return true;
    if (v === 0) return false;
  }
}

/** The vowels of the Latin-script languages: a, e, i, o, u (0, 4, 8, 14, 20 from a; Atbash puts them on z, v, r, l, f). */
/** A text is read deciphered by letter frequencies only with this many letters a-z. */
const MIN_CIPHER_LETTERS = 24;

/**
 * The Caesar shift (or Atbash) the letters of a text were written in, read from where the vowels
 * went: in plain text of any Latin-script language a, e, i, o and u make about two letters in
 * five; in rot13 they sit on n, r, v, b and h. Null when the letters read as plain (or are too
 * few to tell).
 */
export function cipherByLetters(letters: ArrayLike<number>): CipherName | null {
  let total = 0;
  for (let k = 0; k < 26; k++) total += letters[k]!;
  if (total < MIN_CIPHER_LETTERS) return null;
  if (vowelsAt(letters, 0) >= PLAIN_VOWEL_SHARE * total) return null;
  let best: CipherName | null = null;
  let bestCount = CIPHER_VOWEL_SHARE * total;
  for (let by = 1; by < 26; by++) {
    const at = vowelsAt(letters, by);
    if (at > bestCount) {
      bestCount = at;
      best = `rot${by}`;
    }
  }
  if (letters[25]! + letters[21]! + letters[17]! + letters[11]! + letters[5]! > bestCount) best = 'atbash';
  return best;
}
/** How many letters stand where the vowels of plain text are after a shift `by` (0: as written). */
function vowelsAt(letters: ArrayLike<number>, by: number): number {
  return letters[by % 26]! + letters[(4 + by) % 26]! + letters[(8 + by) % 26]! + letters[(14 + by) % 26]! + letters[(20 + by) % 26]!;
}
/** Vowel shares: plain text has at least the first (English about 0.38, Polish and Czech about 0.33), a deciphering must reach the second. */
const PLAIN_VOWEL_SHARE = 0.26;
const CIPHER_VOWEL_SHARE = 0.3;

function decipher(text: string, cipher: CipherName, spans: boolean): Piece {
  const n = text.length;
  let out: string;
  if (cipher === 'reversed') {
    // By code point, so surrogate pairs stay whole.
    out = Array.from(text).reverse().join('');
  } else {
    const by = cipher === 'atbash' ? -1 : 26 - Number(cipher.slice(3));
    out = text.replace(/[A-Za-z]/g, (ch) => {
      const code = charCodeAt.call(ch, 0);
      const base = code >= 97 ? 97 : 65;
      return String.fromCharCode(by < 0 ? base + 25 - (code - base) : base + ((code - base + by) % 26));
    });
  }
  const piece: Piece = { text: out, name: cipher, start: 0, end: n };
  if (spans) {
    const from = new Uint32Array(out.length);
    const to = new Uint32Array(out.length);
    if (cipher === 'reversed') {
      // The reversed text's unit k came from the mirrored place (pairs stay pairs, so units mirror).
      for (let k = 0; k < out.length; k++) {
        from[k] = n - 1 - k;
        to[k] = n - k;
      }
      for (let k = 0; k + 1 < out.length; k++) {
        const c = charCodeAt.call(out, k);
        if (c >= 0xd800 && c <= 0xdbff) {
          from[k] = from[k + 1] = n - 2 - k;
          to[k] = to[k + 1] = n - k;
          k++;
        }
      }
    } else {
      for (let k = 0; k < n; k++) {
        from[k] = k;
        to[k] = k + 1;
      }
    }
    piece.from = from;
    piece.to = to;
  }
  return piece;
}

/** Hex bytes apart ("69 67 6e …", "0x69,0x67…"). */
const HEX_BYTES_HINT = /(?:(?:0x)?[0-9a-fA-F]{2}[ :,-]){7}(?:0x)?[0-9a-fA-F]{2}/;

/** Whether `text` may hold a hex or base64 run worth decoding: MIN_BASE64_CHARS of the alphabet in a row, or hex bytes apart. */
function mayHaveRuns(text: string): boolean {
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    if (!isBase64Char(charCodeAt.call(text, i))) run = 0;
    else if (++run >= MIN_BASE64_CHARS) return true;
  }
  return HEX_BYTES_HINT.test(text);
}

// ---------------------------------------------------------------------------------------------
// All decodings, nested

/** The decodings of one text (not nested), each gated. */
function decodeOnce(text: string, spans: boolean, ciphers: readonly CipherName[] | undefined, runs?: boolean): Piece[] {
  // No closure to collect them: one made per call costs more than the gates on most texts.
  let out = keep(NOTHING, text, percentDecode(text, spans));
  out = keep(out, text, htmlDecode(text, spans));
  out = keep(out, text, escapesDecode(text, spans));
  if (runs ?? mayHaveRuns(text)) {
    for (const p of hexRuns(text, spans)) out = keep(out, text, p);
    for (const p of base64Runs(text, spans)) out = keep(out, text, p);
  }
  for (const cipher of ciphers ?? likelyCiphers(text)) out = keep(out, text, decipher(text, cipher, spans));
  return out;
}
const NOTHING: Piece[] = [];

/** `out` with `p` added when it reveals something (a new array in place of NOTHING). */
function keep(out: Piece[], text: string, p: Piece | null): Piece[] {
  if (p === null || p.text.length === 0 || p.text === text) return out;
  if (out === NOTHING) return [p];
  out.push(p);
  return out;
}

/**
 * What `text` reveals through its decodings, nested up to `maxDepth` deep ("base64>percent"),
 * each with the span of `text` it was decoded from. Empty when no decoding is plausible (the
 * common case, found by cheap tests). Linear: each decoding reads its input once and yields no
 * more than it reads, and all of them together read at most BUDGET_PER_CHAR decoded characters
 * per character of `text` (plus DECODE_SLACK).
 */
export function decodings(text: string, options: DecodeOptions = {}): DecodedText[] {
  const spans = options.spans === true;
  const first = decodeOnce(text, spans, options.ciphers, options.runs);
  if (first.length === 0) return [];
  const maxDepth = options.maxDepth ?? MAX_DEPTH;
  let budget = BUDGET_PER_CHAR * text.length + DECODE_SLACK;
  const found: DecodedText[] = [];
  const queue: Array<{ piece: DecodedText; depth: number }> = [];
  const place = (p: Piece, parent: DecodedText | null, depth: number) => {
    if (found.length >= MAX_PIECES || p.text.length > budget) return;
    budget -= p.text.length;
    let placed: DecodedText;
    if (!parent) {
      placed = { text: p.text, via: p.name, start: p.start, end: p.end };
      if (spans) {
        placed.sourceStart = p.from;
        placed.sourceEnd = p.to;
      }
    } else {
      // Spans in the parent's text, mapped through the parent's own spans to the input.
      const last = Math.max(p.start, p.end - 1);
      const start = parent.sourceStart ? Math.min(parent.sourceStart[p.start] ?? parent.start, parent.sourceStart[last] ?? parent.start) : parent.start;
      const end = parent.sourceEnd ? Math.max(parent.sourceEnd[p.start] ?? parent.end, parent.sourceEnd[last] ?? parent.end) : parent.end;
      placed = { text: p.text, via: `${parent.via}>${p.name}`, start, end };
      if (spans && p.from && p.to && parent.sourceStart && parent.sourceEnd) {
        const from = new Uint32Array(p.text.length);
        const to = new Uint32Array(p.text.length);
        for (let k = 0; k < p.text.length; k++) {
          // The parent's units [p.from[k], p.to[k]) run forwards or backwards (reversed) in the input.
          const first = p.from[k]!;
          const last = Math.max(first, p.to[k]! - 1);
          from[k] = Math.min(parent.sourceStart[first] ?? parent.start, parent.sourceStart[last] ?? parent.start);
          to[k] = Math.max(parent.sourceEnd[first] ?? parent.end, parent.sourceEnd[last] ?? parent.end);
        }
        placed.sourceStart = from;
        placed.sourceEnd = to;
      }
    }
    found.push(placed);
    if (depth < maxDepth) queue.push({ piece: placed, depth });
  };
  for (const p of first) place(p, null, 1);
  for (let q = 0; q < queue.length; q++) {
    const { piece, depth } = queue[q]!;
    // A text is not deciphered twice the same way (reversed twice is the text again).
    const last = piece.via.slice(piece.via.lastIndexOf('>') + 1);
    for (const p of decodeOnce(piece.text, spans, undefined)) {
      if ((p.name === 'reversed' && last === 'reversed') || (p.name.startsWith('rot') && last.startsWith('rot')) || (p.name === 'atbash' && last === 'atbash')) continue;
      place(p, piece, depth + 1);
    }
  }
  return found;
}

/**
 * The span of the input that produced [start, end) of a decoded text (for redaction): the union
 * of its units' spans, or the whole decoded span without unit spans.
 */
export function decodedSourceSpan(decoded: DecodedText, start: number, end: number): { start: number; end: number } {
  const from = decoded.sourceStart;
  const to = decoded.sourceEnd;
  if (!from || !to || end <= start) return { start: decoded.start, end: decoded.end };
  let lo = Number.POSITIVE_INFINITY;
  let hi = 0;
  for (let k = start; k < end && k < from.length; k++) {
    lo = Math.min(lo, from[k]!);
    hi = Math.max(hi, to[k]!);
  }
  return lo <= hi ? { start: lo, end: hi } : { start: decoded.start, end: decoded.end };
}
