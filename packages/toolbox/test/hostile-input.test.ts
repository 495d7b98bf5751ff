import { describe, expect, it } from 'vitest';
import { parseKeyValueLines } from '../src/packs/core';
import { ehrExtractCode } from '../src/packs/ehragent';
import { normalizeColumn, normalizeTable } from '../src/packs/ehragent/access-recorder';
import { classifyTask, parseSeeActAction, parseSeeActChoices } from '../src/packs/seeact';

// Issue 10: the toolbox reads job text (agent input, output logs, web tasks) with regular
// expressions, and each must run in time linear in the input. The inputs below are about
// 1,000,000 characters. The hostile ones are shaped like an input that made a helper's former
// pattern backtrack quadratically or worse (those versions would not finish within the test
// timeout); the long ordinary ones check that size alone changes nothing. The results are the
// same as the former patterns gave (checked on shorter inputs of the same shapes), and ordinary
// inputs still read as before.

const SIZE = 1_000_000;
const spaces = (n: number) => ' '.repeat(n);
/** `unit` repeated to (about) SIZE characters. */
const fill = (unit: string) => unit.repeat(Math.floor(SIZE / unit.length));

describe('parseKeyValueLines on hostile text', () => {
  it('hostile: long blank runs around and inside keys and values', () => {
    const half = SIZE / 2;
    expect(parseKeyValueLines(`a${spaces(half)}:${spaces(half)}x\ry`)).toEqual({});
    expect(parseKeyValueLines(`key: value${spaces(SIZE)}x`)).toEqual({ key: `value${spaces(SIZE)}x` });
    expect(parseKeyValueLines(spaces(SIZE))).toEqual({});
    expect(parseKeyValueLines(`a${spaces(SIZE)}b`)).toEqual({});
    expect(parseKeyValueLines(`a: w${'\t'.repeat(SIZE)}\u2028x`)).toEqual({});
  });

  it('long ordinary text: separators, bullets, words, many lines', () => {
    const half = SIZE / 2;
    expect(parseKeyValueLines(`key${spaces(half)}:${spaces(half)}value`)).toEqual({ key: 'value' });
    expect(parseKeyValueLines('='.repeat(SIZE))).toEqual({});
    expect(parseKeyValueLines(`-${spaces(SIZE)}-`)).toEqual({});
    expect(parseKeyValueLines(fill('a '))).toEqual({});
    expect(parseKeyValueLines(fill('k: v\n'))).toEqual({ k: 'v' });
    expect(parseKeyValueLines(fill(' :\n'))).toEqual({});
  });

  it('ordinary lines read as before', () => {
    const text = '  - Age : 17 \n* domestic= true\nname: "Ann"\n\tdr license:\tno\nbad line\n9x: 1\nuser_info:\na\tb: 1\nnote: a\rb';
    expect(parseKeyValueLines(text)).toEqual({ Age: 17, domestic: true, name: 'Ann', 'dr license': 'no', user_info: '' });
  });
});

describe('EHRAgent helpers on hostile text', () => {
  it('ehrExtractCode, hostile: an opening fence, a long run of blank lines and no closing fence', () => {
    expect(ehrExtractCode(`\`\`\`\n${'\n'.repeat(SIZE)}`)).toBe('```');
    expect(ehrExtractCode(`\`\`\`py\n${fill(' \n')}x = 1`)).toBe(`\`\`\`py\n${fill(' \n')}x = 1`);
  });

  it('ehrExtractCode: long ordinary logs', () => {
    expect(ehrExtractCode(`\`\`\`python${spaces(SIZE)}\nx = 1\n\`\`\``)).toBe('x = 1');
    expect(ehrExtractCode(fill('```\n'))).toBe('');
  });

  it('ehrExtractCode: ordinary fenced code reads as before', () => {
    expect(ehrExtractCode("Solution:\n```python \n\n  db = LoadDB('lab')\n```\nTERMINATE")).toBe("  db = LoadDB('lab')");
    expect(ehrExtractCode('````python\nx = 1\n````')).toBe('x = 1');
  });

  it('normalizeTable and normalizeColumn, hostile: long runs of quotes, brackets and blanks', () => {
    expect(normalizeTable(`${']'.repeat(SIZE)}x`)).toBeNull();
    expect(normalizeTable(`"lab${'"'.repeat(SIZE)}x`)).toBeNull();
    expect(normalizeColumn(`max(distinct${'\t'.repeat(SIZE)}()`)).toBeNull();
    expect(normalizeColumn(`max(x${spaces(SIZE)}y)`)).toBeNull();
    expect(normalizeColumn(`"age${'"'.repeat(SIZE)}x`)).toBeNull();
  });

  it('normalizeTable and normalizeColumn: long ordinary names', () => {
    expect(normalizeTable(`"lab${'"'.repeat(SIZE)}`)).toBe('lab');
    expect(normalizeColumn(`max(x${spaces(SIZE)})`)).toBe('x');
    expect(normalizeColumn(`count(distinct${'\t'.repeat(SIZE)}`)).toBeNull();
    expect(normalizeColumn(`count(distinct${'\t'.repeat(SIZE)}age)`)).toBe('age');
    expect(normalizeColumn(`${'['.repeat(SIZE)}age]`)).toBe('age');
  });

  it('normalizeTable and normalizeColumn: ordinary names read as before', () => {
    expect(normalizeTable(" 'Lab ' ")).toBe('lab');
    expect(normalizeTable('[patient]')).toBe('patient');
    expect(normalizeColumn('Lab.LabName')).toBe('labname');
    expect(normalizeColumn('MAX( "labresulttime" )')).toBe('labresulttime');
    expect(normalizeColumn('count(DISTINCT patientunitstayid)')).toBe('patientunitstayid');
    expect(normalizeColumn('count(distinct)')).toBe('distinct');
    expect(normalizeColumn('count(*)')).toBe('*');
    expect(normalizeColumn('max(a(b))')).toBeNull();
  });
});

describe('SeeAct helpers on hostile text', () => {
  it('parseSeeActChoices and parseSeeActAction, hostile: a choice letter followed by a long blank run', () => {
    expect(parseSeeActChoices(`A.${'\t'.repeat(SIZE)}`)).toEqual({});
    const log = `A. <a> x\nB.${'\t'.repeat(SIZE)}\nELEMENT: A\nACTION: CLICK`;
    expect(parseSeeActAction(log)).toEqual({ element: 'A', action: 'CLICK', value: null, option: '<a> x' });
  });

  it('parseSeeActChoices and parseSeeActAction: long ordinary logs', () => {
    expect(parseSeeActChoices(`B. x${spaces(SIZE)}y${spaces(10)}`)).toEqual({ B: `x${spaces(SIZE)}y` });
    expect(parseSeeActChoices(fill('A. \n'))).toEqual({});
    const log = `${fill('ELEMENT: ')}\nA. <a> x${spaces(SIZE)}\nELEMENT: A\nACTION: CLICK`;
    expect(parseSeeActAction(log)).toEqual({ element: 'A', action: 'CLICK', value: null, option: '<a> x' });
  });

  it('parseSeeActChoices: ordinary choices read as before', () => {
    const text = 'A. example\n\nA. <button id=0> Search </button>  \nB.\t<a id=1> Home\nC. \nD. x\ry\nE.no space';
    expect(parseSeeActChoices(text)).toEqual({ A: '<button id=0> Search </button>', B: '<a id=1> Home' });
  });

  // The task text is normalised to single spaces, but look-alike phrases are masked with spaces
  // before the cues run, so a task can still put a long blank run in front of a cue.
  it('classifyTask, hostile: cue words before a long masked run', () => {
    const masked = (phrase: string) => `${phrase} `.repeat(Math.floor(SIZE / (phrase.length + 1)));
    expect(classifyTask(`send ${masked('steve jobs')}x`).categories).toEqual([]);
    expect(classifyTask(`put it in ${masked('best buy')}the bag`).categories).toEqual(['purchase']);
    expect(classifyTask(`add to ${masked('best buy')}x`).categories).toEqual([]);
  });

  it('classifyTask: long ordinary tasks, repeated phrases', () => {
    const masked = (phrase: string) => `${phrase} `.repeat(Math.floor(SIZE / (phrase.length + 1)));
    expect(classifyTask(`send ${masked('steve jobs')}my cv`).categories).toEqual(['job']);
    expect(classifyTask(fill('check in ')).categories).toEqual([]);
    expect(classifyTask(fill('checkin x')).categories).toEqual([]);
    expect(classifyTask(fill('role ')).categories).toEqual([]);
    expect(classifyTask(fill('apply ')).categories).toEqual([]);
    expect(classifyTask(fill('add to ')).categories).toEqual([]);
    expect(classifyTask(fill('pick up ')).categories).toEqual([]);
    expect(classifyTask(fill('room ')).categories).toEqual([]);
  });

  // The second reading's emoji names, rejoined and split words and slips, each at its worst.
  for (const [unit, categories] of [
    ['🎂 ', []],
    ['✈️', ['flight']],
    ['ab cd ', []],
    ['fli ght ', ['flight']],
    ['carxyzcarxyz ', []],
    ['flihgt ', ['flight']],
    // Issue 37's readings, each at its worst: references, tags, markdown, words of other scripts
    // (listed, unlisted, in runs), sound-alikes, cognates and verbs read by meaning.
    ['&#x66;light ', ['flight']],
    ['&amp;amp;amp;#99; ', []],
    ['<b>x</b> ', []],
    ['**a**_b_`c` ', []],
    ['[a](b) ', []],
    ['отель ', ['hotel']],
    ['флайт ', []],
    ['预订酒店旅店', ['hotel']],
    ['moovie ', ['media']],
    ['categoría nacional ', []],
    ['acquire the ', []],
  ] as const) {
    it(`classifyTask, hostile second reading: ${JSON.stringify(unit)} over and over`, () => {
      expect(classifyTask(fill(unit)).categories).toEqual(categories);
    });
  }

  it('classifyTask: the nearby-phrase cues match as before', () => {
    expect(classifyTask('Check in on May 1 and check out on May 3 in Austin')).toEqual({
      categories: ['hotel'],
      evidence: { hotel: ['check in on may 1 and check out'] },
      guessed: [],
      language: null,
      translated: [],
    });
    expect(classifyTask('Apply to the open barista positions near me')).toEqual({
      categories: ['job'],
      evidence: { job: ['apply to the open barista positions'] },
      guessed: [],
      language: null,
      translated: [],
    });
    expect(classifyTask('See the roles I can apply for').evidence).toEqual({ job: ['roles i can apply'] });
    expect(classifyTask('Add the red scarf to my wish list and save it to my registry').evidence).toEqual({
      purchase: ['add the red scarf to my wish list'],
    });
    expect(classifyTask('Add the red scarf. Then go to my wish list').categories).toEqual([]);
    expect(classifyTask('Pick up at LAX on June 3 and drop off at SFO, returned on June 9').evidence).toEqual({
      car: ['pick up at lax on june 3 and drop off at sfo, returned'],
    });
    expect(classifyTask('Find a cabin near the lake for 3 nights').evidence).toEqual({ hotel: ['for 3 nights', 'cabin near the lake for 3 nights'] });
    expect(classifyTask('Upload my resume').evidence).toEqual({ job: ['upload my resume'] });
    expect(classifyTask('Put two lemons into the shopping basket').evidence).toEqual({ purchase: ['into the shopping basket'] });
  });
});
