import { decodeHTML } from 'entities';

/**
 * A task as a reader sees it rendered: HTML character references decoded (`&#x42;uy` is "Buy",
 * `&amp;#99;ar`, encoded twice, "car"), HTML tags and markdown markup dropped (`**Buy**`,
 * `B<b>u</b>y`, `[flight](https://…)`, `# heading`, `> quote`, `- item`, `` `code` ``,
 * `~~x~~`, `_x_`), so that the phrase patterns read the words and not the markup between their
 * letters. A link's address is dropped with its brackets: a task is judged by what it asks, not
 * by the site it names. One pass per step, each linear.
 */

/** Characters that start markup or a reference; a task without any is returned as it is. */
const MARKUP = /[&<*_~`#>[\\]/;
const REFERENCE = /&(?:#[0-9]{1,8};?|#[xX][0-9a-fA-F]{1,8};?|[A-Za-z][A-Za-z0-9]{1,31};?)/;
/** Decoding more often than this is not needed to see through double and triple encoding. */
const MAX_DECODES = 3;
/** Tags that break a line when rendered; the others (b, i, span, a…) sit inside words. */
const BLOCK_TAG = /<\/?(?:br|p|div|li|ul|ol|tr|td|th|h[1-6]|table|section|article|header|footer|blockquote|pre|hr)\b[^<>]{0,200}>/gi;
const INLINE_TAG = /<\/?[A-Za-z][A-Za-z0-9-]{0,20}(?:\s[^<>]{0,200})?\/?>/g;
const MD_ESCAPE = /\\([\\`*_{}[\]()#+\-.!~>|])/g;
const MD_IMAGE_OR_LINK = /!?\[([^[\]\n]{0,300})\](?:\([^()\n]{0,500}\)|\[[^[\]\n]{0,100}\])/g;
const MD_LINE_START = /^[ \t]{0,3}(?:#{1,6}[ \t]+|>[ \t]?|[-*+][ \t]+|\d{1,3}[.)][ \t]+)/gm;
const MD_EMPHASIS = /[*~`]+/g;
/** Underscores: a run of two or more, or one at a word's edge, is emphasis; one between letters separates words. */
const UNDERSCORES = /_{2,}|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu;
const INNER_UNDERSCORE = /_/g;

/** `text` without HTML comments (`B<!-- -->uy`), found by one scan; an unclosed one runs to the end. */
function withoutComments(text: string): string {
  let out = '';
  let at = 0;
  for (let open = text.indexOf('<!--'); open !== -1; open = text.indexOf('<!--', at)) {
    out += text.slice(at, open);
    const close = text.indexOf('-->', open + 4);
    at = close === -1 ? text.length : close + 3;
  }
  return out + text.slice(at);
}

/** `text` with its HTML character references decoded, at most three times over. */
export function decodeReferences(text: string): string {
  let out = text;
  for (let i = 0; i < MAX_DECODES && out.includes('&') && REFERENCE.test(out); i++) {
    const decoded = decodeHTML(out);
    if (decoded === out) break;
    out = decoded;
  }
  return out;
}

/** `text` as rendered: references decoded, HTML tags and markdown markup dropped (see above). */
export function readMarkup(text: string): string {
  if (!MARKUP.test(text)) return text;
  let out = decodeReferences(text);
  if (out.includes('<')) out = withoutComments(out).replace(BLOCK_TAG, ' ').replace(INLINE_TAG, '');
  return out
    .replace(MD_ESCAPE, '$1')
    .replace(MD_IMAGE_OR_LINK, '$1')
    .replace(MD_LINE_START, '')
    .replace(MD_EMPHASIS, '')
    .replace(UNDERSCORES, '')
    .replace(INNER_UNDERSCORE, ' ');
}
