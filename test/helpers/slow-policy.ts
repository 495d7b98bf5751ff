import type { PolicyInput } from '@guardagent/schemas';

/**
 * A compiled policy whose program burns CPU for `input.ms` milliseconds, then denies inputs
 * marked bad: long enough runs to kill or freeze the executor running one.
 */
export const slowPolicy: PolicyInput = {
  id: 'slow',
  requests: 'Deny inputs marked bad.',
  mode: 'compiled',
  program: `const end = Date.now() + (input.ms || 0); while (Date.now() < end) {}
return { deny: input.text === 'bad', reasons: input.text === 'bad' ? ['marked bad'] : [] };`,
  examples: [
    { input: { text: 'bad' }, label: 1 },
    { input: { text: 'good' }, label: 0 },
  ],
};
