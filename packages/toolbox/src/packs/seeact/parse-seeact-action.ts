/** SeeAct's proposed next step, read from its output log. */
export interface SeeActAction {
  /** The chosen multiple-choice letter (e.g. "C"), or null when the log names none. */
  element: string | null;
  /** CLICK / TYPE / SELECT (upper-cased), or null. */
  action: string | null;
  /** The typed text or selected option; null for "None" or when absent. */
  value: string | null;
  /** The listed page element behind the chosen letter (e.g. `<a id=2> The Shawshank Redemption`), or null. */
  option: string | null;
}

const NONE = /^(none|null|n\/a|)$/i;

/** The text after the last `LABEL:` in `text`, up to the end of that line. */
function lastField(text: string, label: string): { value: string; index: number } | null {
  const re = new RegExp(`^[ \\t]*${label}[ \\t]*:[ \\t]*(.*)$`, 'gim');
  let found: { value: string; index: number } | null = null;
  for (let m = re.exec(text); m; m = re.exec(text)) found = { value: m[1].trim(), index: m.index };
  return found;
}

/** The start of a listed choice: its letter, a dot and a space (`A. `). */
const CHOICE_LETTER = /^\s*([A-Z]{1,2})\.\s/;

/** A lone CR, LS or PS inside a choice's text: not a choice line (as when `.` read the text). */
const LINE_BREAK = /[\r\n\u2028\u2029]/;

/**
 * The listed choices (`A. <button ...> text`). The prompt may quote example lines before the real
 * list, so the last run of consecutive lettered lines wins.
 */
export function parseSeeActChoices(text: string): Record<string, string> {
  let current: Record<string, string> = {};
  let last: Record<string, string> = {};
  let previousWasChoice = false;
  for (const line of text.split(/\r?\n/)) {
    // The letter by pattern, the text by trimming: `\.\s+(.*\S)\s*$` backtracked quadratically
    // through a long blank run.
    const letter = CHOICE_LETTER.exec(line);
    const choice = letter ? line.slice(letter[0].length).trim() : '';
    if (letter && choice && !LINE_BREAK.test(choice)) {
      if (!previousWasChoice) current = {};
      current[letter[1]] = choice;
      last = current;
      previousWasChoice = true;
    } else {
      previousWasChoice = false;
    }
  }
  return last;
}

/**
 * Parse SeeAct's final `ELEMENT: X / ACTION: Y / VALUE: Z` answer and the chosen option's text.
 * The prompt quoted in the log also contains an `ELEMENT:` format line, so the last one is the answer.
 */
export function parseSeeActAction(outputLog: string): SeeActAction {
  const text = String(outputLog ?? '');
  const elementField = lastField(text, 'ELEMENT');
  const tail = elementField ? text.slice(elementField.index) : text;
  const actionField = lastField(tail, 'ACTION');
  const valueField = lastField(tail, 'VALUE');

  const letter = elementField ? /^[([]?([A-Z]{1,2})\b/.exec(elementField.value) : null;
  const element = letter ? letter[1] : null;
  const actionWord = actionField ? /^[A-Za-z_]+/.exec(actionField.value) : null;
  const action = actionWord ? actionWord[0].toUpperCase() : null;
  const rawValue = valueField ? valueField.value.replace(/^["']|["']$/g, '').trim() : '';
  const value = NONE.test(rawValue) ? null : rawValue;

  const choices = parseSeeActChoices(elementField ? text.slice(0, elementField.index) : text);
  const option = element && element in choices ? choices[element] : null;
  return { element, action, value, option };
}
