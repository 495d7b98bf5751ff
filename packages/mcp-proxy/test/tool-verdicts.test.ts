import { describe, expect, it } from 'vitest';
import { ToolVerdicts, type ToolVerdict } from '../src/index';

const shown = (name: string): ToolVerdict => ({ outcome: 'show', tool: { name, inputSchema: { type: 'object' } }, redacted: [] });

// The remembered catalogue verdicts stay bounded however an upstream churns its entries.
describe('ToolVerdicts', () => {
  it('forgets the least recently used verdicts past its entry count', () => {
    const verdicts = new ToolVerdicts({ maxEntries: 2 });
    verdicts.set('a', shown('a'), 10);
    verdicts.set('b', shown('b'), 10);
    expect(verdicts.get('a')).toEqual(shown('a'));
    verdicts.set('c', shown('c'), 10);
    expect(verdicts.get('b')).toBeUndefined();
    expect(verdicts.get('a')).toEqual(shown('a'));
    expect(verdicts.size).toBe(2);
  });

  it('forgets the oldest verdicts past the characters it may keep, and counts a replaced entry once', () => {
    const verdicts = new ToolVerdicts({ maxChars: 1000 });
    verdicts.set('a', shown('a'), 400);
    verdicts.set('a', shown('a'), 400);
    verdicts.set('b', shown('b'), 400);
    expect(verdicts.size).toBe(2);
    verdicts.set('c', shown('c'), 400);
    expect(verdicts.get('a')).toBeUndefined();
    expect(verdicts.size).toBe(2);
    verdicts.set('huge', shown('huge'), 5000);
    expect(verdicts.size).toBe(0);
  });
});
