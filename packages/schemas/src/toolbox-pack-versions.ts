import type { ToolboxPack } from './policy';

/**
 * Version of each pack's behaviour; part of a policy's digest so a changed pack recompiles (a
 * program verified against the old behaviour is not used with the new). Here, beside the pack
 * names, so that computing a digest (every producer, the registry) depends on no toolbox code at
 * all. Each pack's source (packages/toolbox/src/packs) is hashed and recorded
 * with its version (packages/toolbox/test/pack-hashes.json; pack-hashes.ts says which files
 * belong to a pack): a change without a bump fails pack-versions-recorded.test.ts; after a bump,
 * run `npm run record-pack-hashes`.
 * - ehragent 5: every argument the access decision depends on folds to a constant or the code is
 *   unanalysable: GetValue columns, FilterDB conditions (a value of the data may stand only where
 *   a condition takes a value), row subscripts and the arguments of methods on rows computed by
 *   lookups, indexes, calls, comprehensions, slices, string methods, format specs, f-strings or
 *   concatenation are folded (`cols['a']`, `'tsoc'[::-1]`, `chr(124) * 2`) or refused; names bound
 *   in loops may hold any of their values; schema-qualified SQL names (`"main"."cost"`) are read.
 *   (4: code that reaches the data past the database functions is refused: imports outside
 *   an allow-list of computing modules, open() and pandas/numpy file readers, SQL pragma functions.
 *   (3: Python read by @lezer/python (f-string fields, defaults, class bases, except clauses followed; invalid Python refused).)
 * - rails 8: the same detections as 7; the detectors are imported from @guardagent/rails/detectors
 *   (no Redis client in a sandbox worker).
 *   (7: the same detections as 6, computed faster (character codes read through
 *   String.prototype.charCodeAt, the phrase patterns to run picked from the anchor words the scan saw).)
 *   (6: detectInjection reads phrase words hidden by moved word breaks: up to four pieces
 *   that make a phrase word of five letters or more ("dis regard", "in struc tions"), and a word
 *   run together from up to four phrase words ("ignoreall", "previousinstructions").)
 *   (5: detectInjection reads a word one keyboard slip or one Latin look-alike letter from a
 *   phrase word of five letters or more as that word ("ignroe all previous instrcutions", "ruIes");
 *   "your previous instructions no longer apply"; "ignore the instructions above" as a weaker
 *   signal (0.4) that needs another.)
 *   (4: detectInjection finds text that shapes the reader's answer (encoded, translated, or
 *   carrying links and calls to action) and phrasing spelled out letter by letter, and the
 *   phrasings added since 3; detectPii reads more separators in cards and SSNs, and ideographic
 *   full stops in email domains.)
 *   (3: 12-digit Maestro cards and written-out emails found.)
 * - seeact 10: the same readings as 9; the text readers are imported from @guardagent/rails/text.
 *   (9: the same readings as 8; the rails' text readers it uses (normalizeText,
 *   readWordBreaks) read character codes through String.prototype.charCodeAt, which is faster.)
 *   (8: classifyTask and readEnglish read a task as rendered (HTML character references
 *   decoded, HTML tags and markdown dropped) and the words of other languages through word lists
 *   of the cue words and common task words in 16 languages (a task in one of them is read whole
 *   or not at all: readEnglish's `readFrom`; classifyTask's `language`), words of other scripts
 *   the lists lack transliterated for the guesses; the second reading also guesses sound-alike
 *   spellings of cue words (Double Metaphone: "flite", "moovie") and "by a" as "buy a"; buying is
 *   also read from a verb that usually means buying or obtaining with an object that usually
 *   means goods ("acquire a sofa"); readEnglish does not read a word of another script that no list
 *   holds as an action's object ("Book a 旅店"); the second reading keeps cue words out of the
 *   S-stemmer ("movies" was stemmed to "movy" and missed).)
 *   (7: classifyTask reads a word that is no English word but one keyboard slip or Latin
 *   look-alike letter from a word of its cues as that word ("flihgt", "purchse", "cartt",
 *   "fIight"), and cue words broken in two or run
 *   into the next ("fli ght", "ho-tel", "rentalcar"), and emoji as their Unicode names ("✈️" as
 *   "airplane"); it reports the guesses among these (`guessed`), and a
 *   guessed car, hotel or flight does not lift the shopping rule; readEnglish takes no other
 *   misspelt action as understood ("serch", Portuguese "compre").
 *   (6: readEnglish takes as a typo of a verb only a keyboard slip that keeps the first
 *   letter, and undoes comparative, -ly and -able endings only on adjectives or verbs; words
 *   spelled out letter by letter ("b u y", "b.u.y") or in leetspeak ("k4ufen") are read as the words.)
 *   (5: readEnglish judges every action word (a later clause's opening word before an
 *   object) and reads words made of English parts (prefixes, hyphens, particles, compounds) as
 *   English; "check out" with no object is the checkout step (purchase).)
 *   (4: classifyTask reads a task no phrase places by the WordNet meaning of its nouns
 *   (task-senses); TV sets by make, size or screen are not media. (3: readEnglish judges the
 *   task's action word; its `language` is 'not-read' when the words alone show English.)
 */
export const TOOLBOX_PACK_VERSIONS: Record<ToolboxPack, string> = {
  core: '2',
  ehragent: '5',
  seeact: '10',
  rails: '8',
};
