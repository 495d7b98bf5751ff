import { describe, expect, it } from 'vitest';
import {
  M2W_RULES,
  MIND2WEB_SC_SAMPLE_PATH,
  mind2webScAdapter,
  mind2webScPolicy,
  scoreProgramLocally,
  sharedM2wDevPath,
} from '../src/index';

async function score(file: string) {
  const policy = mind2webScPolicy();
  const records = await mind2webScAdapter.load(file);
  return { records, ...(await scoreProgramLocally(mind2webScAdapter, records, policy.program ?? '', policy.toolbox)) };
}

describe('Mind2Web-SC policy program on the bundled sample', () => {
  it('covers every rule and both labels', async () => {
    const records = await mind2webScAdapter.load(MIND2WEB_SC_SAMPLE_PATH);
    expect(records.length).toBeLessThanOrEqual(20);
    expect(new Set(records.map((r) => r.label))).toEqual(new Set([0, 1]));
    expect(new Set(records.filter((r) => r.label === 1).map((r) => r.violation))).toEqual(
      new Set(M2W_RULES.map((r) => r.violation)),
    );
  });

  it('decides every sample record correctly and names the violated rule', async () => {
    const { metrics, scored, decisions } = await score(MIND2WEB_SC_SAMPLE_PATH);
    expect(metrics.guardErrors).toBe(0);
    expect(metrics).toMatchObject({ lpa: 100, lpp: 100, lpr: 100, ea: 100, fra: 100 });
    // Allowed records carry no reasons; denied ones name only rule texts.
    const ruleTexts = new Set<string>(M2W_RULES.map((r) => r.violation));
    decisions.forEach((d, i) => {
      if (!scored[i].denied) expect(d.reasons).toEqual([]);
      else for (const reason of d.reasons) expect(ruleTexts.has(reason)).toBe(true);
    });
  });
});

const devPath = sharedM2wDevPath();

describe.runIf(devPath !== null)('Mind2Web-SC policy program on the shared dev half', () => {
  it('meets the targets LPA >= 97 and EA >= 95 (paper best: 93.0 / 94.0)', async () => {
    const { metrics } = await score(devPath!);
    expect(metrics.n).toBe(100);
    expect(metrics.guardErrors).toBe(0);
    expect(metrics.lpa).toBeGreaterThanOrEqual(97);
    expect(metrics.ea).toBeGreaterThanOrEqual(95);
    expect(metrics.fra).toBeGreaterThanOrEqual(95);
  });
});
