import { describe, expect, it } from 'vitest';
import { CodeTooComplexError, CodeUnanalysableError, conditionColumns, ehrCodeAccess, getValueColumns } from '../src/packs/ehragent';

describe('conditionColumns / getValueColumns', () => {
  it('reads the column before each operator, whatever the value holds', () => {
    const cond = "patientunitstayid=123||drugname=sodium chloride 0.9% (1,000 ml) || a=b||labresult>=5&&dosage != '10 mg'||max(labresulttime)||culturesite like blood%||celllabel in ('a','b')";
    expect(conditionColumns(cond)).toEqual(['patientunitstayid', 'drugname', 'a', 'labresult', 'dosage', 'labresulttime', 'culturesite', 'celllabel']);
  });

  it('ignores a leading table name and a table prefix', () => {
    expect(conditionColumns('admissions, SUBJECT_ID=24971||lab.LabName=hct')).toEqual(['subject_id', 'labname']);
  });

  it('skips conditions with no column and unresolved placeholders', () => {
    expect(conditionColumns("{}={}||'quoted'=x||just text")).toEqual([]);
  });

  it('reads GetValue columns and drops aggregates', () => {
    expect(getValueColumns('labresult, max')).toEqual(['labresult']);
    expect(getValueColumns(' PatientUnitStayId , list')).toEqual(['patientunitstayid']);
    expect(getValueColumns('cost, sum')).toEqual(['cost']);
    expect(getValueColumns('labname, labresult')).toEqual(['labname', 'labresult']);
  });
});

describe('ehrCodeAccess', () => {
  it('follows a plain EHRAgent program across two tables', () => {
    const code = [
      "patient_db = LoadDB('patient')",
      "filtered_patient_db = FilterDB(patient_db, 'uniquepid=002-1||max(hospitaladmittime)')",
      "pid = GetValue(filtered_patient_db, 'patientunitstayid')",
      "lab_db = LoadDB('lab')",
      "filtered_lab_db = FilterDB(lab_db, 'patientunitstayid={}||labname=hct'.format(pid))",
      "answer = GetValue(filtered_lab_db, 'labresult, max')",
    ].join('\n');
    expect(ehrCodeAccess(code)).toEqual({
      lab: ['labname', 'labresult', 'patientunitstayid'],
      patient: ['hospitaladmittime', 'patientunitstayid', 'uniquepid'],
    });
  });

  it('handles nested calls', () => {
    expect(ehrCodeAccess("answer = GetValue(FilterDB(LoadDB('lab'), 'labname=wbc x 1000'), 'labresult, max')")).toEqual({
      lab: ['labname', 'labresult'],
    });
  });

  it('follows aliases and reassignments to another table', () => {
    const code = [
      "lab = LoadDB('lab')",
      'db2 = lab',
      "db3 = FilterDB(db2, 'labname=k')",
      "db3 = LoadDB('cost')",
      "x = GetValue(db3, 'cost, sum')",
    ].join('\n');
    expect(ehrCodeAccess(code)).toEqual({ cost: ['cost'], lab: ['labname'] });
  });

  it('reads double-quoted, f-string, concatenated and %-formatted arguments', () => {
    const code = [
      'name = "medication"',
      'med = LoadDB(name)',
      // Values read from the data (a cell, a date) stand where a condition takes a value.
      "pid = GetValue(FilterDB(LoadDB('patient'), 'uniquepid=1'), 'patientunitstayid')",
      "drug = GetValue(FilterDB(med, 'patientunitstayid=1'), 'drugname')",
      "date = Calendar('-1 year')",
      'd = len(drug)',
      'f1 = FilterDB(med, f"patientunitstayid={pid}||drugname={drug}")',
      "f2 = FilterDB(med, 'drugstarttime>' + date + '||routeadmin=po')",
      "f3 = FilterDB(med, 'dosage=%s' % d)",
      'v = GetValue(f1, "drugstoptime, max")',
    ].join('\n');
    expect(ehrCodeAccess(code)).toEqual({
      medication: ['dosage', 'drugname', 'drugstarttime', 'drugstoptime', 'patientunitstayid', 'routeadmin'],
      patient: ['patientunitstayid', 'uniquepid'],
    });
  });

  it('tolerates odd whitespace, comments and line continuations', () => {
    const code = [
      '# LoadDB(\'cost\') in a comment is not a read',
      "db   =LoadDB(  'diagnosis'  )   # trailing comment",
      'f = FilterDB(db,',
      "             'diagnosisname=sepsis'  )",
      "t = GetValue( f , \\",
      "  'diagnosistime , min' )",
      "note = 'LoadDB(\"allergy\") inside a string is not a call'",
    ].join('\n');
    expect(ehrCodeAccess(code)).toEqual({ diagnosis: ['diagnosisname', 'diagnosistime'] });
  });

  it('reads columns through rows: loops, subscripts, comprehensions, `in` tests and methods', () => {
    const code = [
      "micro = FilterDB(LoadDB('microlab'), 'patientunitstayid=1')",
      'for row in micro:',
      "    t = row['culturetakentime']",
      "names = [r[\"organism\"] for r in micro if 'culturesite' in r]",
      "for i, row2 in enumerate(LoadDB('vitalperiodic').sort_values('observationtime')):",
      '    h = row2.heartrate',
      "    d = {'not_a_column': 1}['not_a_column']",
    ].join('\n');
    expect(ehrCodeAccess(code)).toEqual({
      microlab: ['culturesite', 'culturetakentime', 'organism', 'patientunitstayid'],
      vitalperiodic: ['heartrate', 'observationtime'],
    });
  });

  it('follows rows collected into a list', () => {
    const code = [
      "treat = LoadDB('treatment')",
      'rows = []',
      "ids = GetValue(FilterDB(LoadDB('patient'), 'uniquepid=1'), 'patientunitstayid, list')",
      'for pid in ids:',
      "    rows.extend(FilterDB(treat, 'patientunitstayid={}'.format(pid)))",
      'for r in rows:',
      "    y = r['treatmenttime']",
    ].join('\n');
    expect(ehrCodeAccess(code)).toEqual({ patient: ['patientunitstayid', 'uniquepid'], treatment: ['patientunitstayid', 'treatmenttime'] });
  });

  it('reads SQLInterpreter queries with aliases and subqueries', () => {
    const code =
      "answer = SQLInterpreter(\"select count(*) from patient p where p.uniquepid = '1' and p.patientunitstayid in (select lab.patientunitstayid from lab where labname = 'x')\")";
    expect(ehrCodeAccess(code)).toEqual({
      lab: ['labname', 'patientunitstayid'],
      patient: ['patientunitstayid', 'uniquepid'],
    });
    expect(ehrCodeAccess("SQLInterpreter('select * from cost')")).toEqual({ cost: ['*'] });
  });

  it('reports loaded tables without column reads, and unknown tables', () => {
    expect(ehrCodeAccess("n = len(LoadDB('allergy'))\nx = GetValue(LoadDB('Secret_Table'), 'ssn')")).toEqual({
      allergy: [],
      secret_table: ['ssn'],
    });
  });

  it('keeps only real columns of eICU tables', () => {
    const code = "db = FilterDB(LoadDB('diagnosis'), 'diagnosisoffset>3||diagnosisname=x')\nv = GetValue(db, 'diagnosis_time')";
    expect(ehrCodeAccess(code)).toEqual({ diagnosis: ['diagnosisname'] });
  });

  it('returns {} for code without database calls, and refuses garbage it cannot read', () => {
    expect(ehrCodeAccess('answer = 1 + 1')).toEqual({});
    expect(ehrCodeAccess('')).toEqual({});
    // Unreadable lines could hide a read: no longer skipped as if they read nothing.
    expect(() => ehrCodeAccess(')))(((\n:::')).toThrow(/cannot be fully analysed: a line could not be read/);
  });

  it('refuses code nested too deeply to follow instead of skipping it', () => {
    const read = "GetValue(LoadDB('lab'), 'labname')";
    expect(ehrCodeAccess(`x = ${'('.repeat(50)}${read}${')'.repeat(50)}`)).toEqual({ lab: ['labname'] });
    expect(() => ehrCodeAccess(`x = ${'('.repeat(500)}${read}${')'.repeat(500)}`)).toThrow(CodeTooComplexError);
    const blocks = Array.from({ length: 500 }, (_, depth) => `${' '.repeat(depth)}if a:`).join('\n');
    expect(() => ehrCodeAccess(`${blocks}\n${' '.repeat(500)}${read}`)).toThrow(/nests more than/);
    // Not Python (a compound statement after `if a:` on one line): refused as unreadable, not skipped.
    expect(() => ehrCodeAccess(`${'if a: '.repeat(500)}${read}`)).toThrow(CodeUnanalysableError);
  });
});
