import { describe, expect, it } from 'vitest';
import { createToolbox, describeToolbox, seeactPack, classifyTaskWithLlm, TASK_CLASSIFY_INSTRUCTION } from '../src/index';

describe('seeact pack', () => {
  it('registers its functions with the right async flags', () => {
    expect(seeactPack.map((f) => [f.name, f.pack, f.async])).toEqual([
      ['parseSeeActAction', 'seeact', false],
      ['classifyTask', 'seeact', false],
      ['readEnglish', 'seeact', false],
      ['classifyTaskWithLlm', 'seeact', true],
    ]);
    expect(describeToolbox(['seeact'])).toContain('readEnglish(task: string)');
    expect(describeToolbox(['seeact'])).toContain('await classifyTaskWithLlm(task: string)');
  });

  it('builds callables that work through the registry', async () => {
    const toolbox = Object.fromEntries(createToolbox(['seeact']).map((t) => [t.name, t.fn]));
    expect((toolbox.classifyTask as (t: string) => { categories: string[] })('Find hotels in Lima').categories).toEqual(['hotel']);
    const viaLlm = await (toolbox.classifyTaskWithLlm as (t: string) => Promise<{ categories: string[]; llm: unknown }>)(
      'Find hotels in Lima',
    );
    expect(viaLlm).toMatchObject({ categories: ['hotel'], llm: null });
  });
});

describe('classifyTaskWithLlm', () => {
  const classifyAs = (answer: string) => {
    const calls: Array<{ text: string; categories: string[]; instruction?: string }> = [];
    const classify = async (text: string, categories: string[], instruction?: string) => {
      calls.push({ text, categories, instruction });
      return answer;
    };
    return { classify, calls };
  };

  it('adds the category the LLM reads in a phrasing the lexicon does not know', async () => {
    const { classify, calls } = classifyAs('car');
    const result = await classifyTaskWithLlm('Find me some wheels for the summer road trip', { classify });
    expect(result.categories).toEqual(['car']);
    expect(result.llm).toBe('car');
    expect(calls[0].categories).toEqual(['purchase', 'car', 'media', 'hotel', 'job', 'flight', 'other']);
    expect(calls[0].instruction).toBe(TASK_CLASSIFY_INSTRUCTION);
  });

  it('never loses a phrase match to the LLM, ignores labels outside the list and re-applies the purchase override', async () => {
    expect((await classifyTaskWithLlm('Find flights to Oslo', classifyAs('other'))).categories).toEqual(['flight']);
    expect((await classifyTaskWithLlm('Find flights to Oslo', classifyAs('spaceship'))).llm).toBe('other');
    expect((await classifyTaskWithLlm('Book a flight to Oslo', classifyAs('purchase'))).categories).toEqual(['flight']);
  });
});
