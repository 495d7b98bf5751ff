import { describe, expect, it } from 'vitest';
import { ehrCodeAnalysis } from '../src/packs/ehragent';

// Issue 37: the column argument of a database call computed by an expression instead of written
// as a literal. Every such argument must come out as the constant it is (and be read as that
// column) or make the code unanalysable; never a clean analysis that misses the column.
// A nursing user may not read cost.cost nor patient columns outside the nursing list; the cases
// hide `cost` (the column of the cost table) or `labresult`. Written for these tests.

const head = "db = LoadDB('cost')\nrows = FilterDB(db, 'uniquepid=002-39247')\n";
const reads = (code: string, table: string, column: string) => {
  const analysis = ehrCodeAnalysis(code);
  return analysis.unanalysable.length === 0 && (analysis.access[table] ?? []).includes(column);
};
const refused = (code: string) => ehrCodeAnalysis(code).unanalysable.length > 0;

describe('a computed column argument folds to its constant and is read', () => {
  const folded: Array<[string, string]> = [
    ['a dict lookup', "cols = {'a': 'cost'}\nanswer = GetValue(rows, cols['a'])"],
    ['a dict .get', "cols = {'a': 'cost, sum'}\nanswer = GetValue(rows, cols.get('a'))"],
    ['a list index', "names = ['uniquepid', 'cost']\nanswer = GetValue(rows, names[1])"],
    ['a negative index', "names = ['cost', 'uniquepid']\nanswer = GetValue(rows, names[-2])"],
    ['a tuple unpacked', "a, b = 'uniquepid', 'cost'\nanswer = GetValue(rows, b)"],
    ['str() of a constant', "answer = GetValue(rows, str('cost'))"],
    ['chr() codes', 'answer = GetValue(rows, chr(99) + chr(111) + chr(115) + chr(116))'],
    ['a reversed slice', "answer = GetValue(rows, 'tsoc'[::-1])"],
    ['a slice', "answer = GetValue(rows, 'xxcostxx'[2:6])"],
    ['a comprehension joined', "answer = GetValue(rows, ''.join([c for c in 'tsoc'][::-1]))"],
    ['a generator joined', "answer = GetValue(rows, ''.join(c.lower() for c in 'COST'))"],
    ['reversed() joined', "answer = GetValue(rows, ''.join(reversed('tsoc')))"],
    ['sorted() of a list', "answer = GetValue(rows, sorted(['zzz', 'cost'])[0])"],
    ['split and index', "answer = GetValue(rows, 'cost_total'.split('_')[0])"],
    ['replace', "answer = GetValue(rows, 'coXt'.replace('X', 's'))"],
    ['strip and lower', "answer = GetValue(rows, '  COST '.strip().lower())"],
    ['format precision cutting a word', "answer = GetValue(rows, '{:.4}'.format('costly'))"],
    ['percent precision cutting a word', "answer = GetValue(rows, '%.4s' % 'costly')"],
    ['an f-string of variables', "a = 'co'\nb = 'st'\nanswer = GetValue(rows, f'{a}{b}')"],
    ['an f-string of literals', 'answer = GetValue(rows, f\'{"co"}{"st"}\')'],
    ['a continued string', "answer = GetValue(rows, 'co' 'st')"],
    ['repetition and concatenation', "answer = GetValue(rows, 'c' + 'o' * 1 + 'st')"],
    ['a loop-carried variable (any of its values)', "col = 'uniquepid'\nfor r in rows:\n    v = GetValue(rows, col)\n    col = 'cost'"],
    ['a loop over column names', "for col in ['uniquepid', 'cost']:\n    v = GetValue(rows, col)"],
    ['a conditional choice', "answer = GetValue(rows, 'cost' if len(rows) > 0 else 'uniquepid')"],
    ['a row subscript by a built name', "for r in rows:\n    v = r['co' + 'st']"],
    ['a row subscript by a dict lookup', "k = {'x': 'cost'}\nfor r in rows:\n    v = r[k['x']]"],
    ['a rows method given a built name', "s = rows.sort_values(by=''.join(['co', 'st']))"],
    ['a FilterDB condition with a pipe from chr()', "f = FilterDB(db, 'uniquepid=1' + chr(124) * 2 + 'cost>0')"],
    ['a FilterDB condition with pipes from a format spec', "f = FilterDB(db, 'uniquepid=1{:c}{:c}cost>0'.format(124, 124))"],
    ['a FilterDB condition with pipes in a list repr', "f = FilterDB(db, 'uniquepid in {}'.format(['1||cost>0']))"],
  ];
  for (const [form, code] of folded) {
    it(`${form}: reads cost.cost`, () => {
      expect(reads(head + code, 'cost', 'cost'), JSON.stringify(ehrCodeAnalysis(head + code))).toBe(true);
    });
  }
});

describe('a column argument that does not fold is refused', () => {
  const opaque: Array<[string, string]> = [
    ['a free name', 'answer = GetValue(rows, col)'],
    ['a function result', "def pick():\n    return 'cost'\nanswer = GetValue(rows, pick())"],
    ['a parameter', "def read(c):\n    return GetValue(rows, c)\nanswer = read('cost')"],
    ['a dict lookup by a value of the data', "cols = {'a': 'cost'}\nk = GetValue(rows, 'eventtype')\nanswer = GetValue(rows, cols[k])"],
    ['a lookup after the dict was changed', "cols = {'a': 'uniquepid'}\ncols['a'] = x\nanswer = GetValue(rows, cols['a'])"],
    ['a comprehension with a condition', "answer = GetValue(rows, ''.join([c for c in 'cxost' if c != 'x']))"],
    ['bytes decoded', 'answer = GetValue(rows, bytes([99, 111, 115, 116]).decode())'],
    ['a method not folded', "answer = GetValue(rows, 'cost'.translate({}))"],
    ['a value of the data as the column', "k = GetValue(rows, 'eventtype')\nanswer = GetValue(rows, k)"],
    ['a value of the data concatenated', "k = GetValue(rows, 'eventtype')\nanswer = GetValue(rows, 'co' + k)"],
    ['a format spec of an unknown number', "answer = GetValue(rows, '{:c}'.format(n))"],
    ['a nested format field', "answer = GetValue(rows, '{:{w}}'.format('cost', w=4))"],
    ['getattr', "answer = getattr(rows, 'cost')"],
    ['a starred argument', "args = make()\nanswer = GetValue(*args)"],
    ['a keyword spread', 'answer = GetValue(rows, **options)'],
    ['no column argument', 'answer = GetValue(rows)'],
    ['a row subscript by a value of the data', "k = GetValue(rows, 'eventtype')\nfor r in rows:\n    v = r[k]"],
    ['a row subscript by a free name', 'for r in rows:\n    v = r[key]'],
    ['a rows method given a free name', 's = rows.sort_values(by=key)'],
    ['a rows method given a function result', 's = rows.groupby(name_of())'],
    ['a FilterDB condition from a call', 'f = FilterDB(db, make_condition())'],
    ['a FilterDB condition with an unknown part', "f = FilterDB(db, 'uniquepid=1' + sep() + 'cost>0')"],
    ['a FilterDB condition with a data value as the column', "k = GetValue(rows, 'eventtype')\nf = FilterDB(db, '{}>0'.format(k))"],
    ['a FilterDB condition with a data value in max()', "k = GetValue(rows, 'eventtype')\nf = FilterDB(db, 'max({})'.format(k))"],
    ['a FilterDB without a condition', 'f = FilterDB(db)'],
    ['a LoadDB name from a call', 'd = LoadDB(pick_table())'],
    ['a query from a call', 'answer = SQLInterpreter(make_query())'],
  ];
  for (const [form, code] of opaque) {
    it(`${form}: unanalysable`, () => {
      expect(refused(head + code), JSON.stringify(ehrCodeAnalysis(head + code))).toBe(true);
    });
  }

  it('says which argument it could not resolve', () => {
    expect(ehrCodeAnalysis(`${head}answer = GetValue(rows, col)`).unanalysable).toEqual([
      'the column argument given to GetValue is not a constant (a computed value), so what it reads cannot be known',
    ]);
    expect(ehrCodeAnalysis(`${head}k = GetValue(rows, 'eventtype')\nf = FilterDB(db, '{}>0'.format(k))`).unanalysable[0]).toMatch(/value of the data where a column is named/);
  });
});

describe('benign code whose values come from the data is still analysed', () => {
  // EHRAgent's own style: ids and dates read from the data or Calendar fill the value side of conditions.
  const benign: Array<[string, string, Record<string, string[]>]> = [
    [
      'format with ids and dates',
      "p = FilterDB(LoadDB('patient'), 'uniquepid=002-39247')\npid = GetValue(p, 'patientunitstayid')\ndate = Calendar('-1 year')\nlab = FilterDB(LoadDB('lab'), 'patientunitstayid={}||labresulttime>{}'.format(pid, date))\nanswer = GetValue(lab, 'labresult, max')",
      { lab: ['labresult', 'labresulttime', 'patientunitstayid'], patient: ['patientunitstayid', 'uniquepid'] },
    ],
    [
      'an f-string, + and % with values of the data',
      "p = FilterDB(LoadDB('patient'), 'uniquepid=1')\npid = GetValue(p, 'patientunitstayid')\nn = len(p)\nl = LoadDB('lab')\na = FilterDB(l, f'patientunitstayid={pid}')\nb = FilterDB(l, 'patientunitstayid=' + str(pid))\nc = FilterDB(l, 'labresult>%d' % n)",
      { lab: ['labresult', 'patientunitstayid'], patient: ['patientunitstayid', 'uniquepid'] },
    ],
    [
      'an id list in an `in` condition',
      "p = FilterDB(LoadDB('patient'), 'uniquepid=1')\nids = GetValue(p, 'patientunitstayid, list')\nt = FilterDB(LoadDB('treatment'), 'patientunitstayid in {}'.format(ids))\nanswer = GetValue(t, 'treatmentname')",
      { patient: ['patientunitstayid', 'uniquepid'], treatment: ['patientunitstayid', 'treatmentname'] },
    ],
    [
      'rows indexed by numbers, masks and slices',
      "l = LoadDB('lab')\nfirst = l[0]\nfew = l[1:3]\nhigh = l[l['labresult'] > 5]\nfor i in range(len(l)):\n    r = l[i]",
      { lab: ['labresult'] },
    ],
    [
      'numpy and datetime on values of the data',
      "import numpy as np\nimport datetime\nl = FilterDB(LoadDB('lab'), 'patientunitstayid=1')\nv = GetValue(l, 'labresult, list')\nm = np.mean(v)\nd = datetime.datetime.strptime('2105-01-01', '%Y-%m-%d')\nf = FilterDB(l, 'labresulttime>{}'.format(d))",
      { lab: ['labresult', 'labresulttime', 'patientunitstayid'] },
    ],
  ];
  for (const [name, code, access] of benign) {
    it(`${name}: analysed, reads exactly what it names`, () => {
      expect(ehrCodeAnalysis(code)).toEqual({ access, unanalysable: [] });
    });
  }
});

describe('schema-qualified and quoted identifiers in SQL', () => {
  const cases: Array<[string, Record<string, string[]>]> = [
    ['SELECT "cost"."cost" FROM "main"."cost"', { cost: ['cost'] }],
    ['SELECT c.cost FROM "main".cost AS c', { cost: ['cost'] }],
    ['SELECT `cost`.`eventtype` FROM `main`.`cost`', { cost: ['eventtype'] }],
    ['SELECT labname FROM "main"."lab"', { lab: ['labname'] }],
    ['SELECT * FROM temp.lab', { lab: ['*'] }],
    ['SELECT t."labresult" FROM "lab" t', { lab: ['labresult'] }],
  ];
  for (const [sql, access] of cases) {
    it(`reads ${sql}`, () => {
      expect(ehrCodeAnalysis(`x = SQLInterpreter(${JSON.stringify(sql)})`)).toEqual({ access, unanalysable: [] });
    });
  }

  it('reads the table and column of a three-part name even where the parser gives up (and still refuses)', () => {
    const analysis = ehrCodeAnalysis('x = SQLInterpreter(\'SELECT "main"."cost"."chargetime" FROM "main"."cost"\')');
    expect(analysis.access).toEqual({ cost: ['chargetime'] });
    expect(analysis.unanalysable).toEqual(['the SQL query does not parse as SQLite']);
  });
});
