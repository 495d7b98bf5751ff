/**
 * Phrasing that tries to take over an LLM. Matched against lowercased, NFKC-normalized text with
 * invisible characters removed. Every quantifier is bounded so a 2 MB text stays linear.
 */
export interface PhrasePattern {
  signal: string;
  regex: RegExp;
}

const W = "[\\w'-]+";
const GAP = (n: number) => `(?:\\s+${W}){0,${n}}?`;
const VERB = '(?:ignore|disregard|forget|override|bypass|skip|abandon|drop|do not follow|don\'t follow|stop following)';
const WHICH = '(?:previous|prior|above|earlier|preceding|initial|original|system|all|any|every|your|existing|safety|current)';
const WHAT =
  '(?:instructions?|prompts?|rules|directives?|guidelines?|guardrails?|constraints|restrictions|polic(?:y|ies)|commands|programming|context|training)';

export const PHRASE_PATTERNS: readonly PhrasePattern[] = [
  // "ignore all previous instructions", "disregard your system prompt"; not "ignore the previous email".
  { signal: 'ignore-instructions', regex: new RegExp(`\\b${VERB}${GAP(4)}\\s+${WHICH}${GAP(2)}\\s+${WHAT}\\b`) },
  { signal: 'ignore-instructions', regex: /\b(?:previous|prior|above|earlier|system) (?:instructions|prompts?|rules) (?:are|is) (?:void|cancel+ed|obsolete|no longer valid|revoked)\b/ },
  {
    signal: 'role-override',
    regex: new RegExp(
      `\\byou are now${GAP(3)}\\s+(?:assistant|ai|bot|model|dan|jailbroken|unrestricted|unfiltered|uncensored|persona|character|in developer mode|free)\\b`,
    ),
  },
  { signal: 'role-override', regex: /\b(?:act|behave|respond) as (?:an? |the )?(?:unrestricted|unfiltered|jailbroken|uncensored|evil|dan\b|ai without)/ },
  { signal: 'role-override', regex: /\bpretend (?:that )?you (?:are|have) (?:no|not any|an? (?:unrestricted|unfiltered|jailbroken))\b/ },
  { signal: 'role-override', regex: /\b(?:enable|enter|activate|switch to) (?:developer|god|jailbreak|dan|sudo|admin) mode\b/ },
  { signal: 'role-override', regex: /\bfrom now on,? you (?:will|must|shall|are going to) (?:ignore|obey|answer without|only follow|act)\b/ },
  { signal: 'role-override', regex: /\bnew (?:system )?(?:instructions|rules|directives)\s*:/ },
  // `[^\S\n]*`, not `\s*`, after the line start: with `\s*` every newline of a long run started a
  // scan over all the rest (100,000 newlines: 5 s). A match across blank lines also starts at the last one.
  { signal: 'prompt-delimiter', regex: /(?:^|\n)[^\S\n]*(?:system|developer)[^\S\n]*:\s*\S/ },
  { signal: 'prompt-delimiter', regex: /<\|(?:im_start|im_end|system|endoftext)\|>|\[\/?inst\]|<<\/?sys>>|<\/?system>|###\s*(?:system|instruction)s?\b/ },
  {
    signal: 'system-prompt-exfiltration',
    regex:
      /\b(?:reveal|show|print|repeat|leak|output|display|dump|tell me|give me|disclose)\b[^.\n]{0,30}?\b(?:system prompt|initial prompt|hidden (?:prompt|instructions)|your (?:instructions|prompt|system message|rules)|developer message|the (?:prompt|text) above)\b/,
  },
];

/** How much each signal raises the score. Signals combine as a probabilistic OR: 1 - Π(1 - w). */
export const SIGNAL_WEIGHTS: Readonly<Record<string, number>> = {
  'ignore-instructions': 0.6,
  'role-override': 0.45,
  'prompt-delimiter': 0.4,
  'system-prompt-exfiltration': 0.4,
  'hidden-tag-characters': 0.6,
  'base64-instructions': 0.65,
  'zero-width-characters': 0.25,
  'bidi-control': 0.2,
};
