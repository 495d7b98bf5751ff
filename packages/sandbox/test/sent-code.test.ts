import { describe, expect, it } from 'vitest';
import { SentCode } from '../src/process/sent-code';

describe('SentCode: what an executor has sent one sandbox worker', () => {
  it('sends the text the first time and the number after', () => {
    const sent = new SentCode(4, 1000);
    expect(sent.ref('a')).toEqual({ id: 0, text: 'a' });
    expect(sent.ref('b')).toEqual({ id: 1, text: 'b' });
    expect(sent.ref('a')).toEqual({ id: 0 });
    expect(sent.takeForgotten()).toEqual([]);
  });

  it('tells the worker to forget what it evicts, least recently used first, and sends it again when it comes back', () => {
    const sent = new SentCode(2, 1000);
    sent.ref('a');
    sent.ref('b');
    sent.ref('a'); // a is now more recent than b
    expect(sent.ref('c')).toEqual({ id: 2, text: 'c' });
    expect(sent.takeForgotten()).toEqual([1]);
    expect(sent.ref('b')).toEqual({ id: 3, text: 'b' });
    expect(sent.takeForgotten()).toEqual([0]);
  });

  it('evicts by size too, and never keeps code larger than the whole cache (forgotten with the message that carries it)', () => {
    const sent = new SentCode(10, 10);
    sent.ref('12345');
    sent.ref('678901');
    expect(sent.takeForgotten()).toEqual([0]);
    const huge = 'x'.repeat(11);
    expect(sent.ref(huge)).toEqual({ id: 2, text: huge });
    expect(sent.takeForgotten()).toEqual([2]);
    expect(sent.ref(huge)).toEqual({ id: 3, text: huge });
    expect(sent.takeForgotten()).toEqual([3]);
    expect(sent.ref('678901')).toEqual({ id: 1 });
  });
});
