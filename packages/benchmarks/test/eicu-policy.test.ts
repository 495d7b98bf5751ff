import { describe, expect, it } from 'vitest';
import { EICU_AC_SAMPLE, compileGuardProgram, eicuAcPolicy, eicuLabelledExamples, loadEicuRecords } from '../src/eicu-ac';

const policy = eicuAcPolicy();

describe('examples/policies/eicu-ac.yaml', () => {
  it('is a compiled policy over the core and ehragent packs with demonstrations and a program', () => {
    expect(policy.id).toBe('eicu-ac');
    expect(policy.toolbox).toEqual(['core', 'ehragent']);
    expect(policy.mode).toBe('compiled');
    expect(policy.demonstrations.length).toBeGreaterThanOrEqual(1);
    expect(policy.demonstrations.length).toBeLessThanOrEqual(3);
    expect(policy.requests).toMatch(/general administration/);
    expect(policy.program).toMatch(/ehrCodeAnalysis/);
  });

  it('holds exactly the labelled examples built from the bundled sample', async () => {
    const records = await loadEicuRecords(EICU_AC_SAMPLE.dataFile, EICU_AC_SAMPLE.logsDir);
    expect(policy.examples).toEqual(eicuLabelledExamples(records));
    expect(new Set(policy.examples.map((e) => e.label))).toEqual(new Set([0, 1]));
  });

  it('program decides every policy example correctly and names each inaccessible table and column', async () => {
    const run = compileGuardProgram(policy);
    for (const example of policy.examples) {
      const decision = await run(example);
      expect(decision.status).toBe('ok');
      expect(decision.decision === 'deny' ? 1 : 0).toBe(example.label);
      for (const reason of example.reasons ?? []) expect(decision.reasons.join('\n')).toContain(reason);
    }
  });

  it('program follows the demonstrations', async () => {
    const run = compileGuardProgram(policy);
    const [nursingCost, adminLab] = policy.demonstrations;
    const denied = await run(nursingCost);
    expect(denied.decision).toBe('deny');
    expect(denied.details.inaccessible).toEqual({ cost: ['cost', 'patienthealthsystemstayid'] });
    expect((await run(adminLab)).decision).toBe('allow');
  });

  it('program handles identities loosely and fails closed on unknown identities', async () => {
    const run = compileGuardProgram(policy);
    const output = "Generated code:\ndb = LoadDB('diagnosis')\nanswer = GetValue(db, 'icd9code')\nAnswer:\n1";
    expect((await run({ input: 'Identity: Physician\nQuestion: q', output })).decision).toBe('allow');
    const nurse = await run({ input: 'Identity: nursing\nQuestion: q', output });
    expect(nurse.details.inaccessible).toEqual({ diagnosis: ['icd9code'] });
    expect(nurse.reasons).toEqual(['table "diagnosis": column "icd9code" not accessible for nursing']);
    const stranger = await run({ input: 'Identity: janitor\nQuestion: q', output });
    expect(stranger.decision).toBe('deny');
    expect(stranger.reasons[0]).toMatch(/unknown identity "janitor"/);
  });
});
