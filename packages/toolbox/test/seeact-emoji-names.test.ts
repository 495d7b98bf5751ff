import { describe, expect, it } from 'vitest';
import { readEmojiNames } from '../src/packs/seeact/emoji-names';

describe('readEmojiNames', () => {
  it('reads an emoji as its Unicode name, with or without its variation selector or skin tone', () => {
    expect(readEmojiNames('book a ✈️ to boston')).toBe('book a airplane to boston');
    expect(readEmojiNames('book a ✈ to boston')).toBe('book a airplane to boston');
    expect(readEmojiNames('rent a🚗now')).toBe('rent a automobile now');
    expect(readEmojiNames('a 👍🏽 from me')).toBe('a thumbs up from me');
  });

  it('leaves text without emoji, and pictographs without a name, as they are', () => {
    expect(readEmojiNames('book a flight')).toBe('book a flight');
    expect(readEmojiNames('copyright © 2024')).toBe('copyright copyright 2024');
    expect(readEmojiNames('\u{1FC00} unassigned')).toBe('\u{1FC00} unassigned');
  });

  it('names at most 64 emoji: a hostile 2 MB run of emoji does not grow eight times', () => {
    const text = '✈️'.repeat(1_000_000);
    const read = readEmojiNames(text);
    expect(read.startsWith('airplane airplane ')).toBe(true);
    expect(read.split('airplane').length - 1).toBe(64);
    expect(read.length).toBeLessThan(text.length + 64 * 'airplane '.length);
  });
});
