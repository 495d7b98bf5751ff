// The text library alone (normalising, spelled-out letters, keyboard slips, word breaks): its own
// entry point (`@guardagent/rails/text`) so that the toolbox, which runs in sandbox worker processes,
// loads it without the rails engine and its Redis stores. A process that loads ioredis holds its
// `class VerbatimString extends String`, and from then on V8 no longer inlines `s.charCodeAt(i)`.
export { normalizeText, readLeetspeak, sourceSpan, type NormalizedText, type NormalizeOptions } from './text/normalize-text';
export { joinSpelledLetters, spelledReadings, type JoinOptions } from './text/join-spelled-letters';
export { keyboardSlips, slipIndex, readSlips, MIN_SLIP_CHARS, type SlipReading, type SlipOptions } from './text/keyboard-slips';
export { patternWords } from './text/pattern-words';
export { readWordBreaks, wordBreakReader, type WordBreakReading, type WordBreakDeps, type WordBreakReader } from './text/word-breaks';
