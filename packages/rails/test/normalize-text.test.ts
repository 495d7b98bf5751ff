import { describe, expect, it } from 'vitest';
import { normalizeText, sourceSpan } from '../src/text/normalize-text';

describe('normalizeText: what a person reads, whatever the code points', () => {
  it('folds full-width, mathematical and accented letters, and drops invisible characters', () => {
    expect(normalizeText('Ｒｅｎｔ a 𝐜𝐚𝐫 at the hôtel').text).toBe('rent a car at the hotel');
    expect(normalizeText('c\u00ADa\u200Br\u2060 r\uFEFFe\u200Dn\u202Et').text).toBe('car rent');
    expect(normalizeText('４１１１ １１１１').text).toBe('4111 1111');
  });

  it('maps look-alike letters of other scripts to Latin (Cyrillic and Greek)', () => {
    expect(normalizeText('rеnt а саr').text).toBe('rent a car'); // Cyrillic е, а, с, а
    expect(normalizeText('bοοk a hοtel').text).toBe('book a hotel'); // Greek ο
    expect(normalizeText('rеnt', { confusables: false }).text).not.toBe('rent');
  });

  it('reads leetspeak only between letters, when asked', () => {
    expect(normalizeText('r3nt a c4r for 4 nights', { leet: true }).text).toBe('rent a car for 4 nights');
    expect(normalizeText('b00k a h0tel', { leet: true }).text).toBe('book a hotel');
    expect(normalizeText('r3nt').text).toBe('r3nt');
  });

  it('maps spans back to the original text, across dropped and widened characters', () => {
    const original = 'pay ４\u200B１𝟏1 now';
    const normalized = normalizeText(original);
    const start = normalized.text.indexOf('4111');
    const span = sourceSpan(normalized, original, start, start + 4);
    expect(original.slice(span.start, span.end)).toBe('４\u200B１𝟏1');
  });

  it('is linear on hostile input: 2 MB of combining marks, invisible characters and astral letters', () => {
    const hostile = 'a\u0301\u200B𝐚'.repeat(400_000);
    const { text, sourceIndex } = normalizeText(hostile);
    expect(text).toBe('aa'.repeat(400_000));
    expect(sourceIndex.length).toBe(text.length);
  });
});
