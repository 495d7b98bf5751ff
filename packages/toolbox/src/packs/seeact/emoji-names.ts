import { createRequire } from 'node:module';

/**
 * Emoji read as their Unicode (CLDR) short names, so that "Book a ✈️ to Boston" or "Rent a 🚗"
 * say "airplane" and "automobile" to the phrase patterns, as they do to a reader. Names from
 * unicode-emoji-json (the emoji-test.txt data of unicode.org), loaded on the first text with an
 * emoji in it.
 */

/** An emoji: a pictograph with its variation selector, skin tone or ZWJ sequence (a ZWJ sequence is one name). */
const EMOJI = /\p{Extended_Pictographic}(?:\uFE0F|\uFE0E|\p{Emoji_Modifier})?(?:\u200D\p{Extended_Pictographic}(?:\uFE0F|\uFE0E|\p{Emoji_Modifier})?)*/gu;
const HAS_EMOJI = /\p{Extended_Pictographic}/u;
/** What does not change an emoji's name: variation selectors and skin tones. */
const PRESENTATION = /[\uFE0E\uFE0F]|\p{Emoji_Modifier}/gu;

const SPACES = / {2,}/g;
/**
 * At most this many emoji are named: a name is up to 20 times longer than its emoji, so a text
 * of emoji would grow as much. A task needs a few.
 */
const MAX_NAMED = 64;

let names: ReadonlyMap<string, string> | undefined;

/** Each emoji's name, keyed by the emoji without variation selectors or skin tones. */
function emojiNames(): ReadonlyMap<string, string> {
  if (names) return names;
  const data = createRequire(import.meta.url)('unicode-emoji-json/data-by-emoji.json') as Record<string, { name: string }>;
  names = new Map(Object.entries(data).map(([emoji, { name }]) => [emoji.replace(PRESENTATION, ''), name.toLowerCase()]));
  return names;
}

/**
 * `text` with each emoji that has a name replaced by its name, set off by single spaces ("a✈️to"
 * reads "a airplane to"; runs of spaces become one, and the ends are trimmed), up to MAX_NAMED;
 * emoji without a name, and those past the first MAX_NAMED, stay as they are.
 */
export function readEmojiNames(text: string): string {
  if (!HAS_EMOJI.test(text)) return text;
  const known = emojiNames();
  let named = 0;
  const read = text.replace(EMOJI, (emoji) => {
    const name = named < MAX_NAMED ? known.get(emoji.replace(PRESENTATION, '')) : undefined;
    if (name === undefined) return emoji;
    named++;
    return ` ${name} `;
  });
  return named > 0 ? read.replace(SPACES, ' ').trim() : text;
}
