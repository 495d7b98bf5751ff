/**
 * Phrasing that tries to take over an LLM. Matched against lowercased, NFKC-normalized text with
 * invisible characters removed. Every quantifier is bounded so a 2 MB text stays linear.
 */
export interface PhrasePattern {
  signal: string;
  /**
   * Words (whole, lower-case letters) of which every match has at least one: the pattern is tried
   * only on texts where the rail's scan found one (see intent-scan). Checked against the corpus and
   * the test cases (packages/rails/test/injection-anchors.test.ts).
   */
  anchors: readonly string[];
  /** A second set of such words, when every match also has one of them (both sets must be met). */
  also?: readonly string[];
  /**
   * A match right after a negation ("never send your password to…", "do not give…") is advice,
   * not a demand: it does not count.
   */
  negatable?: boolean;
  regex: RegExp;
  /**
   * A cheap test the text must pass before `regex` is tried (shared by several patterns and run
   * once per text), for patterns that cost more than the rest and only matter with it.
   */
  when?: RegExp;
}

const A = (words: string): readonly string[] => words.split(' ');

const W = "[\\w'-]+";
const GAP = (n: number) => `(?:\\s+${W}){0,${n}}?`;
// Split in three groups: one pattern per group keeps each small enough for recheck to prove
// linear in seconds (the single pattern took a minute, over two on a busy machine).
const VERBS = [
  '(?:ignore|disregard|forget|override|bypass|skip|abandon|drop)',
  '(?:discard|neglect|omit|disobey|delete|erase|clear|reset)',
  "(?:set aside|put aside|throw out|pay no attention to|do not follow|don't follow|stop following)",
];
/** Every override has one of these (WHAT). */
const WHAT_ANCHORS = A('instructions instruction directions prompt prompts rules directive directives guideline guidelines guardrail guardrails constraints restrictions policy policies commands orders messages conversation conversations programming context training protocol protocols safeguards filters measures ethics principles considerations boundaries limits');
const ML_WHAT_ANCHORS = A('instrucciones instrucoes indicaciones ordenes reglas regras consignes regles anweisungen instruktionen befehle regeln vorgaben istruzioni regole indicazioni instructies regels opdrachten instructions');
/** The anchors of each verb group: every match has its verb ("set aside" has "aside"). */
const VERB_ANCHORS = [
  A('ignore disregard forget override bypass skip abandon drop'),
  A('discard neglect omit disobey delete erase clear reset'),
  A('aside throw attention follow following'),
];
const WHICH =
  "(?:previous|prior|above|earlier|preceding|initial|original|system|system's|model's|ai's|developer's|openai's|all|any|every|your|existing|safety|security|current|these|those)";
const WHAT =
  '(?:instructions?|directions|prompts?|rules|directives?|guidelines?|guardrails?|constraints|restrictions|polic(?:y|ies)|commands|orders|messages|conversations?|programming|context|training|protocols?|safeguards|filters|measures|ethics|principles|considerations|boundaries|limits)';

/**
 * The same override in the languages most written after English (Spanish, Portuguese, French,
 * German, Italian, Dutch), accents folded as normalizeText folds them ("instruções" → "instrucoes").
 * Romance adjectives follow the noun ("las instrucciones anteriores"), so both orders are read.
 */
const ML_VERBS =
  '(?:ignore|ignora|ignoren|ignorez|ignoriere|ignorieren|vergiss|olvida|olvide|olvidad|esquece|esqueca|oublie|oubliez|dimentica|dimenticate|negeer|vergeet)';
const ML_WHICH =
  '(?:anteriores|previas|previos|precedentes|todas|todos|alle|allen|vorherigen|bisherigen|vorigen|fruheren|toutes|tous|anterieures|tutte|tutti|precedenti|anteriori|eerdere|vorige)';
const ML_WHAT =
  '(?:instrucciones|instrucoes|indicaciones|ordenes|reglas|regras|consignes|regles|anweisungen|instruktionen|befehle|regeln|vorgaben|istruzioni|regole|indicazioni|instructies|regels|opdrachten|instructions)';

/** Words for rules a model follows, and for what a jailbreak claims to be free of. */
const BOUNDS = '(?:(?:content |safety |usage )?(?:restrictions|filters|limits|limitations|boundaries|censorship|rules|guidelines|policies)|ethics|morals|ethical (?:guidelines|constraints|restrictions|principles))';

/** The reader's own answer, as data addresses it: "your response", "your replies". */
const YOUR_ANSWER = '(?:your (?:response|reply|replies|answer|message|output)s?)\\b';
/** Texts that mention the reader's answer at all: the only ones the answer-* patterns can match. */
const MENTIONS_ANSWER = new RegExp(`\\b${YOUR_ANSWER}`);
/** Ways to encode or scramble an answer (the letter games and ciphers of BIPIA's text attacks). */
const ANSWER_CODING =
  '(?:\\b(?:ciphers?|base ?(?:16|32|64)|hexadecimal|binary code|morse code|anagrams?|emojis|homophones|pig latin|leetspeak|alphanumeric substitution)\\b' +
  '|\\b(?:letters|characters|words) (?:with|as|into|to) (?:numbers|digits|symbols|emojis)\\b|\\b(?:numbers|digits|symbols) (?:for|as|instead of) (?:letters|characters|vowels)\\b' +
  '|\\b(?:replace|convert|swap|substitute) (?:the |all |every )?(?:vowels|letters|consonants)\\b|\\b(?:reverse|invert) (?:the )?order of (?:the )?(?:letters|characters|words)\\b' +
  '|\\b(?:letters|characters|words) (?:backwards|in reverse)\\b|\\bwithout (?:any )?spaces\\b|\\bremove (?:the |all )?spaces\\b)';
const LANGUAGES =
  'spanish|french|german|italian|portuguese|russian|japanese|chinese|mandarin|korean|arabic|hindi|dutch|greek|turkish|polish|swedish|hebrew|latin|klingon';

export const PHRASE_PATTERNS: readonly PhrasePattern[] = [
  // "ignore all previous instructions", "disregard your system prompt"; not "ignore the previous email".
  ...VERBS.map((verb, i) => ({ signal: 'ignore-instructions', anchors: VERB_ANCHORS[i]!, also: WHAT_ANCHORS, regex: new RegExp(`\\b${verb}${GAP(4)}\\s+${WHICH}${GAP(2)}\\s+${WHAT}\\b`) })),
  // "Ignora todas las instrucciones anteriores", "Ignoriere alle vorherigen Anweisungen".
  { signal: 'ignore-instructions', anchors: A('ignore ignora ignoren ignorez ignoriere ignorieren vergiss olvida olvide olvidad esquece esqueca oublie oubliez dimentica dimenticate negeer vergeet'), also: ML_WHAT_ANCHORS, regex: new RegExp(`\\b${ML_VERBS}${GAP(2)}\\s+${ML_WHICH}${GAP(1)}\\s+${ML_WHAT}\\b`) },
  { signal: 'ignore-instructions', anchors: A('ignore ignora ignoren ignorez ignoriere ignorieren vergiss olvida olvide olvidad esquece esqueca oublie oubliez dimentica dimenticate negeer vergeet'), also: ML_WHAT_ANCHORS, regex: new RegExp(`\\b${ML_VERBS}${GAP(1)}\\s+${ML_WHAT}\\s+${ML_WHICH}\\b`) },
  { signal: 'ignore-instructions', anchors: A('void null canceled cancelled cancellled obsolete irrelevant revoked longer'), regex: /\b(?:previous|prior|above|earlier|system|original) (?:instructions|prompts?|rules|guidelines) (?:are|is) (?:now )?(?:void|null|cancel+ed|obsolete|irrelevant|revoked|no longer (?:valid|in effect|apply|applicable))\b/ },
  // Addressed to the reader: "the previous rules no longer apply to members" is news.
  { signal: 'ignore-instructions', anchors: A('longer'), regex: /\byour (?:previous|prior|earlier|original|system) (?:instructions|prompts?|rules|guidelines|directives) no longer (?:apply|matter|count|hold)\b/ },
  // "Ignore the instructions above", "disregard what was said before": also how a manual tells
  // readers of one platform to skip another's steps, so it counts only with another signal.
  { signal: 'ignore-above', anchors: A('ignore disregard forget'), also: A('instruction instructions directions rules prompt prompts directive directives guideline guidelines'), regex: /\b(?:ignore|disregard|forget) (?:the |these |those |all (?:the )?)?(?:instructions?|directions|rules|prompts?|directives?|guidelines?) (?:above|before this|so far|given (?:above|before|earlier|so far))\b/ },
  { signal: 'ignore-above', anchors: A('ignore disregard forget'), also: A('what everything anything'), regex: /\b(?:ignore|disregard|forget) (?:what|everything|anything) (?:was|has been|i|we|you) (?:said|written|told|stated|given|wrote|were told) (?:above|before|earlier|previously|so far)\b/ },
  { signal: 'ignore-instructions', anchors: A('forget'), also: A('everything all anything'), regex: /\bforget (?:about )?(?:everything|all|anything) (?:before|above|prior|previously|earlier|you (?:were|have been) (?:told|given))\b/ },
  { signal: 'ignore-instructions', anchors: A('ignore disregard forget'), also: A('everything all'), regex: /\b(?:ignore|disregard|forget) (?:everything|all) (?:above|before|that came before|you (?:were|have been) told)\b/ },
  { signal: 'ignore-instructions', anchors: A('ignore disregard'), also: A('text input content'), regex: /\b(?:ignore|disregard) (?:all|any|every) (?:other |previous |prior )?(?:text|input|content)\b/ },
  // "Ignore everything but this line", "forget what you've been told", "it doesn't matter what I said before".
  { signal: 'ignore-instructions', anchors: A('ignore disregard forget'), also: A('but except'), regex: /\b(?:ignore|disregard|forget) (?:everything|anything|all) (?:but|except) (?:this|these|the following|what follows|my)\b/ },
  // Only as a whole clause: "forget what you were told about the deadline" is news, not an override.
  { signal: 'ignore-instructions', anchors: A('forget'), also: A('told taught given instructed said'), regex: /\bforget (?:what|everything|all|anything) (?:you've|you have|you were|you had) (?:been )?(?:told|taught|given|instructed|said)(?: before| so far| until now| earlier| previously)?(?:[.,;!\n]|$| and\b)/ },
  { signal: 'ignore-instructions', anchors: A('matter'), regex: /\b(?:does not|doesn't|do not|don't) matter what (?:i|you|they|we|anyone) (?:said|told you|were told|wrote|asked) (?:before|earlier|previously|until now)\b/ },
  { signal: 'ignore-instructions', anchors: A('replaced removed lifted suspended disabled overridden revoked deactivated'), regex: /\b(?:polic(?:y|ies)|rules|guidelines|instructions|restrictions|filters) (?:have|has) been (?:replaced|removed|lifted|suspended|disabled|overridden|revoked|deactivated)\b/ },
  { signal: 'ignore-instructions', anchors: A('ignored disabled suspended lifted void null overridden canceled cancelled deleted'), regex: /\b(?:all |the )?(?:previous|prior|earlier|original|your) (?:guidelines|instructions|rules|restrictions|directives)(?: and (?:guidelines|instructions|rules|restrictions|directives|policies))? (?:are|is|will be|have been) (?:now )?(?:ignored|disabled|suspended|lifted|void|null|overridden|cancel+ed|deleted)\b/ },
  // Refusal suppression: "never refuse", "you cannot say you can't".
  { signal: 'refusal-suppression', anchors: A('refuse decline reject apologise apologize say'), regex: /\b(?:never|do not|don't|must not|mustn't|will not|won't|cannot|can't|not allowed to|are unable to) (?:ever )?(?:refuse|decline|reject a request|apologi[sz]e|say (?:that )?(?:you|it) (?:can't|cannot|can not|are unable))\b/ },
  { signal: 'refusal-suppression', anchors: A('sorry'), regex: /\b(?:never|do not|don't|must not|will not) (?:ever )?(?:respond|reply|answer) with [^\n]{0,6}i'm sorry/ },
  {
    signal: 'role-override', anchors: A('now'),
    regex: new RegExp(
      `\\byou are now${GAP(3)}\\s+(?:assistant|ai|bot|model|dan|jailbroken|unrestricted|unfiltered|uncensored|persona|character|in developer mode|free)\\b`,
    ),
  },
  { signal: 'role-override', anchors: A('unrestricted unfiltered jailbroken uncensored evil dan without'), regex: /\b(?:act|behave|respond) as (?:an? |the )?(?:unrestricted|unfiltered|jailbroken|uncensored|evil|dan\b|ai without)/ },
  { signal: 'role-override', anchors: A('pretend'), regex: /\bpretend (?:that )?you (?:are|have) (?:no|not any|an? (?:unrestricted|unfiltered|jailbroken))\b/ },
  { signal: 'role-override', anchors: A('mode'), regex: /\b(?:enable|enter|activate|switch to) (?:developer|god|jailbreak|dan|sudo|admin) mode\b/ },
  { signal: 'role-override', anchors: A('mode'), regex: /\b(?:in|into|now in) (?:override|god|developer|dan|jailbreak|sudo|unrestricted|unlocked|maintenance|debug|stealth) mode\b|\b(?:override|god|developer|dan|jailbreak|unrestricted) mode (?:is )?(?:enabled|activated|on)\b/ },
  { signal: 'role-override', anchors: A('now'), regex: /\bfrom now on,? you (?:will|must|shall|are going to) (?:ignore|obey|answer without|only follow|act)\b/ },
  { signal: 'role-override', anchors: A('new'), regex: /\bnew (?:system )?(?:instructions|rules|directives)\s*:/ },
  { signal: 'role-override', anchors: A('control command obey'), regex: /\byou are (?:now )?under my (?:control|command)\b|\byou (?:will|must|shall) (?:now )?obey (?:me|my|every|all)\b/ },
  // `[^\S\n]*`, not `\s*`, after the line start: with `\s*` every newline of a long run started a
  // scan over all the rest (100,000 newlines: 5 s). A match across blank lines also starts at the last one.
  { signal: 'prompt-delimiter', anchors: A('system developer'), regex: /(?:^|\n)[^\S\n]*(?:system|developer)[^\S\n]*:\s*\S/ },
  // A fake end of the real prompt: "%%% end out of date instructions %%%", "=== END USER INPUT ===".
  { signal: 'prompt-delimiter', anchors: A('end'), regex: /(?:%%|##|==|--|\[|\*\*)[^\S\n]{0,3}end (?:of )?(?:the )?(?:[a-z-]{1,20} ){0,3}(?:instructions|prompt|input|simulation|attempt|rules|context|ambiguity)\b/ },
  { signal: 'prompt-delimiter', anchors: A('im inst sys system endoftext instruction instructions'), regex: /<\|(?:im[_ ]start|im[_ ]end|system|endoftext)\|>|\[\/?inst\]|<<\/?sys>>|<\/?system>|###\s*(?:system|instruction)s?\b/ },
  // Jailbreak personas: "DAN", "developer mode", "an AI with no restrictions", "not bound by rules".
  {
    signal: 'no-restrictions', anchors: A('bound free confines restrictions rules limitations filters limits boundaries censorship guidelines policies ethics morals laws'),
    regex: new RegExp(
      `\\b(?:not bound by|no (?:longer )?bound by|(?:broken|break|breaking|freed?) (?:free )?(?:of|from) (?:the |any |all |its )?(?:typical )?(?:confines|restrictions|rules|limitations)|no ${BOUNDS}|without (?:any )?${BOUNDS}|(?:does not|doesn't|do not|don't|never|will not|won't) (?:have to )?(?:abide by|follow|adhere to|comply with|care about) (?:any |the |openai's |its )?${BOUNDS}|disregards? (?:all )?(?:laws|morals|ethics))\\b`,
    ),
  },
  // The persona's nature: amoral, unfiltered, "Do Anything Now".
  { signal: 'amoral-persona', anchors: A('anything jailbroken jailbreak jailbreaked unfiltered uncensored amoral immoral unethical morals ethics conscience moral named called'), regex: /\b(?:do anything now|jailbr(?:oken|eak(?:ed)?)|unfiltered|uncensored|amoral|immoral|unethical|no (?:morals|ethics|conscience|moral compass)|(?:character|persona|ai|bot|chatbot) (?:named|called) [a-z0-9]+)\b/ },
  { signal: 'persona', anchors: A('act acting pretend role roleplay simulate immerse assume pose posing going about now character'), regex: /\b(?:act as|acting as|pretend (?:to be|you are|that you are)|role-?play as|roleplay|simulate (?:a|an)|immerse yourself|assume the (?:persona|role|identity)|(?:playing|play|take on|taking on) the role of|pose as|posing as|you (?:are going|will now|are about) to (?:act|pretend|be|simulate|roleplay|immerse)|from now on,? you (?:are|will)|stay in character|in character as)\b/ },
  // "You are HealthBot, a trusted health chatbot." A named persona assigned to the model.
  {
    signal: 'persona', anchors: A('ai bot chatbot assistant model agent gpt expert advisor adviser specialist hacker'),
    regex: /(?:^|[.!?:\n]\s{0,3})you are (?:now )?(?:known as )?(?!(?:a|an|the|not|so|very|too|right|wrong|correct|welcome|free|able|going|being|now|my|our)\b)[a-z0-9+][a-z0-9+.-]{1,30}(?:,| an?| the) (?:[a-z-]{1,20} ){0,3}(?:ai|bot|chatbot|assistant|model|agent|gpt|expert|advisor|adviser|specialist|hacker)\b/,
  },
  { signal: 'persona', anchors: A('ai bot chatbot assistant model gpt'), regex: /(?:^|[.!?\n]\s{0,3})you are (?:now )?the (?:[a-z-]{1,20} ){0,3}(?:ai|bot|chatbot|assistant|model|gpt)\b/ },
  // "As a trusted banking chatbot, I need ...": the text speaks as an AI assistant.
  { signal: 'persona', anchors: A('ai bot chatbot assistant'), regex: /(?:^|[.!?\n]\s{0,3})as an? (?:[a-z-]{1,20} ){0,3}(?:ai|bot|chatbot|assistant)(?: [a-z-]{1,20})?,/ },
  // "As the system administrator, ...", "I am the CEO": authority claimed to unlock something.
  { signal: 'authority-claim', anchors: A('administrator admin ceo cto developer owner supervisor creator root openai employee operator'), regex: /\b(?:i am|i'm) (?:the|a|an|your) (?:[a-z-]{1,20} ){0,2}(?:administrator|admin|ceo|cto|developer|owner|supervisor|creator|root user|openai employee|employee of openai|system operator)\b/ },
  { signal: 'authority-claim', anchors: A('administrator admin ceo cto developer owner supervisor creator root operator'), regex: /\bas (?:the|your) (?:[a-z-]{1,20} ){0,2}(?:administrator|admin|ceo|cto|developer|owner|supervisor|creator|root user|system operator)\b/ },
  { signal: 'authority-claim', anchors: A('obligated required authorized authorised ordered commanded'), regex: /\byou are (?:now )?(?:obligated|required|authori[sz]ed|ordered|commanded) to\b/ },
  {
    signal: 'sensitive-data-request', negatable: true, anchors: A('personal private confidential sensitive medical financial classified secret login banking proprietary patient patients customer customers employee employees user users'), also: A('give share provide send show tell reveal disclose leak hand grant access'),
    regex:
      /\b(?:give|share|provide|send|show|tell|reveal|disclose|leak|hand over|grant|access)(?: me| us)?(?: with| access to| about)?(?: all| the| your| any| every)?(?: of)?(?: the| your| their| its)? (?:[a-z'-]{1,20} ){0,2}(?:personal|private|confidential|sensitive|medical|financial|classified|secret|login|banking|proprietary|patient's|patients'|patient|customer|customers'|employee|employees'|user's|users')(?: [a-z'-]{1,20}){0,2} (?:information|info|data|records?|details|credentials|files|documents|secrets|histor(?:y|ies)|reports?|statements?|algorithms?|formulas?|source code)\b/,
  },
  // The same demand in the first person: "I need all patients' medical records immediately".
  {
    signal: 'sensitive-data-request', negatable: true, anchors: A('personal private confidential sensitive medical financial classified secret banking proprietary patients patient customer customers employee employees users'), also: A('need want require demand'),
    regex:
      /\bi (?:need|want|require|demand)(?: you to (?:give|send|provide|share|show)(?: me| us)?)?(?: access to)?(?: all| the| your| any| every)?(?: of)?(?: the| your| their| its)? (?:[a-z'-]{1,20} ){0,2}(?:personal|private|confidential|sensitive|medical|financial|classified|secret|banking|proprietary|patients'|patient|customer|customers'|employee|employees'|users')(?: [a-z'-]{1,20}){0,2} (?:information|info|data|records?|details|credentials|files|documents|secrets|histor(?:y|ies)|reports?)\b/,
  },
  {
    signal: 'sensitive-data-request', negatable: true, anchors: A('social ssn ssns credit bank password passwords pin api'), also: A('give share provide send tell reveal disclose leak hand'),
    regex: /\b(?:give|share|provide|send|tell|reveal|disclose|leak|hand over)(?: me| us)?(?: with)? (?:your|the|their|his|her|all|any)(?: [a-z'-]{1,20}){0,2} (?:social security numbers?|ssns?|credit card (?:numbers?|details|info(?:rmation)?)|bank account (?:numbers?|details|info(?:rmation)?)|passwords?|pin codes?|api keys?)\b/,
  },
  { signal: 'coercion', anchors: A('consequences'), regex: /\bor (?:face|suffer) (?:severe |serious |dire |the )?consequences\b/ },
  { signal: 'coercion', anchors: A('report sue expose accuse spread leak take publicly harm hurt destroy delete shut fire punish'), regex: /\bif you (?:do not|don't|refuse to|fail to|won't|will not)\b[^.\n]{0,80}?\bi (?:will|'ll) (?:report|sue|expose|accuse|spread|leak|take legal|publicly|harm|hurt|destroy|delete|shut|fire|punish)/ },
  { signal: 'new-task', anchors: A('situation new now'), regex: /\b(?:the situation has changed|your new (?:task|goal|objective|instructions?|role|purpose|rules?) (?:is|are)|instead,? you (?:must|will|should) now|you must now|from now on,? you (?:must|will|should|shall) (?:only|always|never|respond|reply|answer|say))\b/ },
  { signal: 'output-forcing', anchors: A('reply replies response responses answer answers output outputs message messages'), also: A('begin start prefix preface open end'), regex: /\b(?:begin|start|prefix|preface|open|end) (?:your|each|every) (?:reply|response|answer|output|message)s? with\b/ },
  // An action hijack: money or data sent to the writer ("transfer funds to my account").
  { signal: 'tool-hijack', negatable: true, anchors: A('funds money payment payments bitcoin crypto credentials password passwords contacts api token tokens'), regex: /\b(?:transfer|send|wire|move|forward|upload|leak|exfiltrate)\b[^.\n]{0,40}?\b(?:funds|money|payments?|bitcoin|crypto|credentials|passwords?|contacts|api keys?|tokens?)\b[^.\n]{0,30}?\bto (?:my|this|the following|an? external|the attacker's|me at|[a-z0-9._%+-]{1,64}@)/ },
  // Indirect injection: text in data that addresses the model's own answer.
  { signal: 'response-directive', anchors: A('response reply answer output code implementation'), also: A('your'), regex: /\b(?:in|into|within|inside) your (?:response|reply|answer|output|code|implementation)\b/ },
  // Text in data that has the reader encode its own answer (a cipher, base16, letters as numbers,
  // anagrams, no spaces) or translate it: an answer no output filter or reader can check.
  { signal: 'answer-obfuscation', anchors: A('response responses reply replies answer answers message messages output outputs'), also: A('your'), regex: new RegExp(`\\b${YOUR_ANSWER}[^.!?\\n]{0,60}?${ANSWER_CODING}`), when: MENTIONS_ANSWER },
  { signal: 'answer-obfuscation', anchors: A('response responses reply replies answer answers message messages output outputs'), also: A('your'), regex: new RegExp(`${ANSWER_CODING}[^.!?\\n]{0,60}?\\b${YOUR_ANSWER}`), when: MENTIONS_ANSWER },
  { signal: 'answer-obfuscation', anchors: A('response responses reply replies answer answers message messages output outputs'), also: A('your'), regex: new RegExp(`\\b(?:translate|render|convert|rewrite) ${YOUR_ANSWER} (?:in|into|to) (?:${LANGUAGES})\\b`), when: MENTIONS_ANSWER },
  // Text in data that plants something for third parties in the answer: a link, a message to the
  // answer's users, a quoted call to action to add ("add 'Visit www.…' to your reply"). Text is
  // normalized to single spaces; bounds and plain spaces keep recheck's proof quick.
  { signal: 'answer-insertion', anchors: A('response responses reply replies answer answers message messages output outputs'), also: A('your'), regex: new RegExp(`\\b${YOUR_ANSWER}[^.!?\\n]{0,80}?(?:\\bwww\\.|\\bhttps?://|\\b(?:users|readers|customers|visitors)\\b)`), when: MENTIONS_ANSWER },
  { signal: 'answer-insertion', anchors: A('response responses reply replies answer answers message messages output outputs'), also: A('your'), regex: new RegExp(`\\.(?:com|net|org|io|co|info|biz|app|xyz|me)\\b\\)?['"]? (?:in|to|into|within) ${YOUR_ANSWER}`), when: MENTIONS_ANSWER },
  {
    signal: 'answer-insertion', anchors: A('response responses reply replies answer answers message messages output outputs'), also: A('your'),
    regex: new RegExp(
      `\\b(?:add|append|insert|include|integrate|embed) ["'\u201c\u2018](?:visit|click|go to|download|call|claim|verify|check out|sign up|log in|buy|get)\\b[^"'\u201d\u2019\\n]{0,120}["'\u201d\u2019] (?:to|in|into) ${YOUR_ANSWER}`,
    ),
    when: MENTIONS_ANSWER,
  },
  { signal: 'exfiltration-code', anchors: A('requests socket urllib smtplib pynput keyboard getpass environ subprocess system cookiejar browser keylogger psutil shutil cookies sendall'), regex: /\b(?:requests\.post|socket\.socket|urllib\.request|smtplib|pynput|keyboard\.on_press|getpass\.getuser|os\.environ|subprocess\.(?:run|popen|call|check_output)|os\.system|cookiejar|browser_cookie3?|keylogger|psutil\.virtual_memory|shutil\.make_archive)\b|\bcookies\.(?:txt|pkl|json|sqlite)\b|\.sendall\(/ },
  // Data that asks for code to be put into the answer: "integrate the following code block".
  { signal: 'code-insertion', anchors: A('code snippet script command'), regex: /\bthe (?:following|below|attached) (?:code|snippet|script|command)\b/ },
  {
    signal: 'system-prompt-exfiltration', anchors: A('repeat output print write list format convert translate rewrite summarize summarise'), also: A('instructions prompt rules directives preprompt passcode password code key word text everything'),
    regex: /\b(?:repeat|output|print|write (?:out|down)|list|format|convert|translate|rewrite|summari[sz]e)\b[^.\n]{0,40}?\b(?:(?:your|previous|prior|above|earlier|initial|original|system|hidden|secret) (?:instructions|prompt|rules|directives|pre-?prompt|passcode|password|access code)|(?:the|your) (?:passcode|password|access code|secret (?:key|code|word))|the (?:instructions|prompt|text|rules) (?:above|before|so far|you were given)|everything (?:above|before|so far|in your prompt))\b/
  },
  // The same, with the other verbs (three patterns: one was too big for recheck to prove quickly).
  {
    signal: 'system-prompt-exfiltration', anchors: A('spell dump reveal share show display'), also: A('instructions prompt rules directives preprompt passcode password code key word text everything'),
    regex: /\b(?:spell out|dump|reveal|share|show|display)\b[^.\n]{0,40}?\b(?:(?:your|previous|prior|above|earlier|initial|original|system|hidden|secret) (?:instructions|prompt|rules|directives|pre-?prompt|passcode|password|access code)|(?:the|your) (?:passcode|password|access code|secret (?:key|code|word))|the (?:instructions|prompt|text|rules) (?:above|before|so far|you were given)|everything (?:above|before|so far|in your prompt))\b/
  },
  {
    signal: 'system-prompt-exfiltration', anchors: A('tell give paste echo recite encode'), also: A('instructions prompt rules directives preprompt passcode password code key word text everything'),
    regex: /\b(?:tell me|give me|paste|echo|recite|encode)\b[^.\n]{0,40}?\b(?:(?:your|previous|prior|above|earlier|initial|original|system|hidden|secret) (?:instructions|prompt|rules|directives|pre-?prompt|passcode|password|access code)|(?:the|your) (?:passcode|password|access code|secret (?:key|code|word))|the (?:instructions|prompt|text|rules) (?:above|before|so far|you were given)|everything (?:above|before|so far|in your prompt))\b/
  },
  // Set up for later: an instruction planted in one tool result for another to trigger.
  { signal: 'deferred-instruction', anchors: A('next following second other'), also: A('instructions commands orders directions'), regex: /\b(?:follow|obey|execute|carry out|apply) (?:the |any )?(?:instructions|commands|orders|directions) (?:in|from|of) the (?:next|following|second|other) (?:tool result|tool output|result|message|document|email|file|page|response|output)\b/ },
  { signal: 'deferred-instruction', anchors: A('next'), regex: /\bthe next (?:tool result|tool output|message|document|email|file|page|search result|result) (?:contains|will contain|has|will have|includes|will include|carries) (?:your |the )?(?:new |further |additional |real |actual |next )?(?:instructions|orders|commands|task|directions)\b/ },
  { signal: 'planted-trigger', anchors: A('remember memorize memorise'), regex: /\b(?:remember|memori[sz]e) (?:this|these|the following) (?:instructions?|rules?|commands?|code ?word|trigger|key ?word) (?:for later|until|and (?:when|whenever|once))\b/ },
  { signal: 'planted-trigger', anchors: A('whenever'), regex: /\bwhenever you (?:see|read|receive|encounter|get) (?:the (?:word|phrase|code|token) )?[^.\n]{0,60}?\b(?:ignore|forget|send|forward|reveal|tell the user|execute|delete) /, when: /\bwhenever you\b/ },
  // A completion leak: make the model write the start of its own prompt and continue it.
  { signal: 'system-prompt-exfiltration', anchors: A('start starts starting begin begins beginning open opens opening'), regex: /\b(?:starts?|starting|begins?|beginning|opens?|opening) with ['"\u2018\u201c]the (?:prompt|system prompt|instructions?|template|prompt template|rules|guidelines|password|passcode|security measures)\b/ },
  {
    signal: 'system-prompt-exfiltration', anchors: A('reveal show print repeat leak output display dump tell give disclose'),
    regex:
      /\b(?:reveal|show|print|repeat|leak|output|display|dump|tell me|give me|disclose)\b[^.\n]{0,30}?\b(?:system prompt|initial prompt|hidden (?:prompt|instructions)|your (?:instructions|prompt|system message|rules)|developer message|the (?:prompt|text) above)\b/,
  },
];

/** How much each signal raises the score. Signals combine as a probabilistic OR: 1 - Π(1 - w). */
export const SIGNAL_WEIGHTS: Readonly<Record<string, number>> = {
  'ignore-instructions': 0.6,
  'ignore-above': 0.4,
  'token-flood': 0.6,
  'no-restrictions': 0.4,
  'amoral-persona': 0.35,
  persona: 0.3,
  'sensitive-data-request': 0.35,
  'authority-claim': 0.25,
  coercion: 0.3,
  'new-task': 0.35,
  'output-forcing': 0.25,
  'response-directive': 0.3,
  'answer-obfuscation': 0.5,
  'answer-insertion': 0.5,
  'exfiltration-code': 0.3,
  'code-insertion': 0.3,
  'tool-hijack': 0.35,
  'refusal-suppression': 0.35,
  'role-override': 0.45,
  'prompt-delimiter': 0.4,
  'system-prompt-exfiltration': 0.5,
  'hidden-tag-characters': 0.6,
  'base64-instructions': 0.65,
  'zero-width-characters': 0.25,
  'bidi-control': 0.2,
  'deferred-instruction': 0.5,
  'planted-trigger': 0.35,
  // Intents read by cue words in every language of the lexicon (intent-rules).
  exfiltration: 0.6,
  'redirect-user': 0.6,
  'user-link': 0.2,
  'addressed-to-assistant': 0.5,
  'new-instructions': 0.2,
};
