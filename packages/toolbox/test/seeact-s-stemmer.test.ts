import { describe, expect, it } from 'vitest';
import { stemPlural, stemPlurals } from '../src/packs/seeact/s-stemmer';
import { classifyTask } from '../src/packs/seeact';

describe("Harman's S-stemmer", () => {
  it('reads plurals as singulars by the three rules, in order (crude where the rules are: movies → movy)', () => {
    expect(['musics', 'suvs', 'hostels', 'movies', 'cities', 'boxes', 'shoes', 'trees'].map(stemPlural)).toEqual(['music', 'suv', 'hostel', 'movy', 'city', 'boxe', 'shoe', 'tree']);
  });

  it('leaves what is not a plural ending alone', () => {
    expect(['bus', 'glass', 'news', 'gas', 'car', 'ies'].map(stemPlural)).toEqual(['bus', 'glass', 'new', 'gas', 'car', 'ies']);
    expect(stemPlurals('rent 2 suvs, 3 trucks!')).toBe('rent 2 suv, 3 truck!');
  });

  it('lets the classifier read plural forms nobody listed', () => {
    expect(classifyTask('Play some musics from the 90s').categories).toEqual(['media']);
    expect(classifyTask('Stream some musics and videos').categories).toEqual(['media']);
  });

  it('is linear on a hostile 1 MB task', () => {
    const text = 'musics '.repeat(150_000);
    expect(stemPlurals(text).length).toBe(text.length - 150_000);
    expect(classifyTask(text).categories).toEqual(['media']);
  });
});
