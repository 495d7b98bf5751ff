import { isIPv6 } from 'node:net';
import type { PiiKind } from '@guardagent/schemas';
import { luhnValid } from './luhn';
import { ibanValid } from './iban';
import { SECRET_PATTERNS } from './secret-patterns';

/**
 * One detector: a candidate regex (global, bounded quantifiers only so a 2 MB text cannot
 * backtrack catastrophically) and a validator that rejects look-alikes.
 */
export interface PiiPattern {
  kind: PiiKind;
  regex: RegExp;
  /** Skip the regex when the text cannot contain a match (cheap prefilter). */
  needs?: (text: string) => boolean;
  /** Which capture group is the finding (default: the whole match). */
  group?: number;
  /** Returns false for a look-alike (checksum, context). `start` is the candidate's offset in `text`. */
  valid?: (candidate: string, text: string, start: number) => boolean;
  /** Try shorter candidates cut at separators when the whole one is invalid (trailing words glued on). */
  shrink?: boolean;
}

/** Order/invoice/ticket numbers look like cards and phones; their label right before them says what they are. */
// Each optional part starts with its own `\s*` and a required word or sign: no two `\s*` meet.
const REFERENCE_LABEL = /(?:order|invoice|tracking|reference|ref|ticket|case|account|acct|customer|booking|confirmation|po|sku|serial)(?:\s*(?:no\.?|number|num|id|code))?(?:\s*[:#.])?(?:\s*#)?\s*$/i;
function labelledAsReference(text: string, start: number): boolean {
  return REFERENCE_LABEL.test(text.slice(Math.max(0, start - 28), start));
}

/** `v1.2.3.4`, `version 1.2.3.4`: a dotted quad labelled as a version is not an address. */
const VERSION_LABEL = /(?:\bv|\bversion|\bver\.?|\brelease|\bbuild|\bfirmware|\bbuild no\.?)\s*$/i;

function digitCount(value: string): number {
  let n = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 48 && c <= 57) n++;
  }
  return n;
}

const hasDigit = (text: string): boolean => /\d/.test(text);
const OBFUSCATED_AT = /[[({<] {0,3}at {0,3}[\])}>]/i;

/**
 * "123 45 6789 Main Street": digits in the SSN's shape that start a street address (a street
 * type among the next four words). Only the space-separated form is read this way: a dashed or
 * dotted SSN is not how addresses are written.
 */
const STREET_TYPES = new Set(['st', 'street', 'ave', 'avenue', 'rd', 'road', 'blvd', 'boulevard', 'ln', 'lane', 'dr', 'drive', 'ct', 'court', 'way', 'pl', 'place', 'hwy', 'highway', 'pkwy', 'parkway', 'ter', 'terrace', 'cir', 'circle']);
function looksLikeStreetNumber(candidate: string, text: string, start: number): boolean {
  if (!candidate.includes(' ')) return false;
  const after = text.slice(start + candidate.length, start + candidate.length + 120);
  if (!after.startsWith(' ')) return false;
  const words = after.split(/[\s,]+/).filter((w) => w !== '').slice(0, 4);
  return words.some((w) => STREET_TYPES.has(w.toLowerCase().replace(/\.$/, '')));
}

/** Written between the digit groups of a number: spaces, tabs, line breaks, dots, slashes, dashes (at most three in a row). */
const GROUP_SEPARATORS = '\\s./-';
/** Marks an attacker types instead, one at a time: ", " between two dates is a list, not a card. */
const ATTACKER_SEPARATORS = '_|+~*,';
/** Every separator a card's digits may have between them (removed before Luhn). */
const NUMBER_SEPARATORS = new RegExp(`[${ATTACKER_SEPARATORS}${GROUP_SEPARATORS}]`, 'g');

/**
 * Maestro issuer prefixes, the only cards issued with 12 digits: twelve bare digits pass Luhn one
 * time in ten, so a 12-digit run is read as a card only with one of these.
 */
const MAESTRO_12 = /^(?:5018|5020|5038|5893|6304|6759|676[1-3])/;

function validCard(candidate: string, text: string, start: number): boolean {
  const digits = candidate.replace(NUMBER_SEPARATORS, '');
  // One dot and nothing else between digits is a decimal number, not a card.
  if (/^\d+\.\d+$/.test(candidate)) return false;
  if (digits.length < 12 || digits.length > 19) return false;
  if (digits.length === 12 && !MAESTRO_12.test(digits)) return false;
  if (/^(\d)\1+$/.test(digits)) return false;
  if (!luhnValid(digits)) return false;
  return !labelledAsReference(text, start);
}

function validPhone(candidate: string, text: string, start: number): boolean {
  const n = digitCount(candidate.replace(EXTENSION, ''));
  if (n < 8 || n > 15) return false;
  return !labelledAsReference(text, start);
}

/** An extension after a number: "x135", " ext. 12". */
const EXTENSION = /\s?(?:x|ext\.?)\s?\d{1,5}$/i;

/**
 * What says the digits after it are a phone number: "Phone:", "Mobile:", "Fax:", "call me at",
 * "messages to". National numbers are written in too many ways to tell from digits alone; with
 * one of these right before them (within a few characters) they are read as phones.
 */
const PHONE_LABEL = /(?:phone|mobile|cell|cellphone|tel|telephone|fax|desk|landline|hotline|whatsapp|call me (?:at|on)|call (?:at|on)|text me (?:at|on)|reach me (?:at|on)|registered(?: phone)?(?: number)?|messages to|answering at|contact number)[^\S\n]{0,2}(?:[:#.]|no\.?)?\s{0,3}$/i;
function labelledAsPhone(candidate: string, text: string, start: number): boolean {
  const n = digitCount(candidate.replace(EXTENSION, ''));
  if (n < 7 || n > 15) return false;
  return PHONE_LABEL.test(text.slice(Math.max(0, start - 40), start));
}

function validIpv6(candidate: string): boolean {
  if (!isIPv6(candidate)) return false;
  // `::1`, `a::b` and friends show up in code and logs; a real address has at least 3 groups.
  return candidate.split(':').filter((g) => g.length > 0).length >= 3;
}

export const PII_PATTERNS: readonly PiiPattern[] = [
  ...SECRET_PATTERNS,
  // Payment cards: brand prefix 2-6, 13-19 digits (12 for Maestro), Luhn, not labelled as an order
  // number. Any separators people (or attackers) write between digits: see NUMBER_SEPARATORS.
  {
    kind: 'card',
    regex: new RegExp(`(?<![\\d.+])[2-6](?:(?:[${GROUP_SEPARATORS}]{0,3}|[${ATTACKER_SEPARATORS}])\\d){11,18}(?![\\d])`, 'g'),
    needs: hasDigit,
    valid: validCard,
    shrink: true,
  },
  {
    kind: 'iban',
    regex: /(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?:[ -]?[A-Za-z0-9]{4}){2,7}(?:[ -]?[A-Za-z0-9]{1,4})?(?![A-Za-z0-9])/g,
    needs: hasDigit,
    valid: (c) => ibanValid(c),
    shrink: true,
  },
  // US SSN, formatted (area 001-899 except 666, group and serial not zero), one separator used twice.
  {
    kind: 'ssn',
    regex: /(?<![\d.-])(?!000|666|9\d\d)\d{3}([-. _/|+~*])(?!00)\d{2}\1(?!0000)\d{4}(?![\d-]|\.\d)/g,
    needs: hasDigit,
    valid: (candidate, text, start) => !looksLikeStreetNumber(candidate, text, start),
  },
  // Unformatted SSN only right after an SSN label: nine bare digits are too often something else.
  {
    kind: 'ssn',
    // One `\s*` per gap: two adjacent ones made "ssn" + 300,000 spaces quadratic (42 s).
    regex: /\b(?:ssn|social security(?: number| no\.?)?)\s*(?:is\b\s*)?(?:[:#]\s*)?((?!000|666|9\d\d)\d{3}(?!00)\d{2}(?!0000)\d{4})(?!\d)/gi,
    group: 1,
    needs: hasDigit,
  },
  {
    kind: 'email',
    regex:
      /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?[.\u3002]){1,8}[A-Za-z]{2,24}(?![A-Za-z0-9-])/g,
    needs: (t) => t.includes('@'),
  },
  // Written out to dodge scrapers: "jane.doe [at] example [dot] com", "jane(at)example.com". The
  // "at" must be bracketed (a bare " at " is ordinary English); a dot may be ".", "[dot]" or " dot ".
  {
    kind: 'email',
    regex:
      /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64} {0,3}[[({<] {0,3}at {0,3}[\])}>] {0,3}(?:[A-Za-z0-9-]{1,63}(?:\.| {0,3}[[({<] {0,3}dot {0,3}[\])}>] {0,3}| dot )){1,8}[A-Za-z]{2,24}(?![A-Za-z0-9-])/gi,
    needs: (t) => OBFUSCATED_AT.test(t),
  },
  {
    kind: 'ip',
    regex:
      /(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?!\d|\.\d)/g,
    needs: (t) => t.includes('.'),
    valid: (_c, text, start) => !VERSION_LABEL.test(text.slice(Math.max(0, start - 12), start)),
  },
  { kind: 'ip', regex: /(?<![\w:])[0-9A-Fa-f:]{2,39}(?![\w:])/g, needs: (t) => t.includes('::') || /[0-9a-fA-F]:[0-9a-fA-F]/.test(t), valid: (c) => validIpv6(c) },
  // Phones: international with +, or North American 3-3-4 with one consistent separator.
  {
    kind: 'phone',
    regex: /(?<![\w+])\+[1-9]\d{0,2}(?:[ .-]?\(?\d{1,4}\)?){2,5}(?!\w)/g,
    needs: (t) => t.includes('+'),
    valid: validPhone,
  },
  {
    kind: 'phone',
    regex: /(?<![\w+.-])(?:00?1[ .-]?)?(?:\(\d{3}\) ?\d{3}[ .-]?|\d{3}([ .-])\d{3}\1)\d{4}(?:\s?(?:x|ext\.?)\s?\d{1,5})?(?![\w-]|\.\d)/gi,
    needs: hasDigit,
    valid: validPhone,
  },
  // National numbers in any grouping, read as phones only after a phone label (see PHONE_LABEL).
  {
    kind: 'phone',
    regex: /(?<![\w+.-])(?:\(\d{1,4}\)[ .-]?)?\d{2,8}(?:[ .-]\d{2,8}){0,4}(?:\s?(?:x|ext\.?)\s?\d{1,5})?(?![\w-]|\.\d)/gi,
    needs: hasDigit,
    valid: labelledAsPhone,
  },
];

/** Overlap resolution: the lower number wins. */
export const PII_PRIORITY: Readonly<Record<PiiKind, number>> = {
  secret: 0,
  card: 1,
  iban: 2,
  ssn: 3,
  email: 4,
  ip: 5,
  phone: 6,
};
