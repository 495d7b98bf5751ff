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

  it('keeps an exact map when folds widen the text far past its length (ligatures), so a finding after them maps back whole', () => {
    // Each ﬃ folds to three letters: 5,000 of them widen the text by 10,000 units.
    const input = `${'ﬃ'.repeat(5000)} card 4111 ﬃ`;
    const normalized = normalizeText(input, { confusables: false, lowerCase: false });
    expect(normalized.text).toBe(`${'ffi'.repeat(5000)} card 4111 ffi`);
    expect(normalized.sourceIndex).toHaveLength(normalized.text.length);
    const at = normalized.text.indexOf('4111');
    expect(sourceSpan(normalized, input, at, at + 4)).toEqual({ start: input.indexOf('4111'), end: input.indexOf('4111') + 4 });
    expect(normalized.sourceIndex[normalized.text.length - 1]).toBe(input.length - 1);
  });

  it('is linear on hostile input: 2 MB of combining marks, invisible characters and astral letters', () => {
    const hostile = 'a\u0301\u200B𝐚'.repeat(400_000);
    const { text, sourceIndex } = normalizeText(hostile);
    expect(text).toBe('aa'.repeat(400_000));
    expect(sourceIndex.length).toBe(text.length);
  });
});
