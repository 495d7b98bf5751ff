import type { PolicyInput } from '@guardagent/schemas';

/** A compiled policy whose supplied program denies refunds over 100; its examples verify it with no LLM. */
export const refundsPolicy: PolicyInput = {
  id: 'refunds',
  requests: 'Deny any refund over 100.',
  mode: 'compiled',
  program: "return Number(context.amount) > 100 ? { deny: true, reasons: ['over 100'] } : { deny: false };",
  examples: [
    { input: 'r', context: { amount: 500 }, label: 1 },
    { input: 'r', context: { amount: 5 }, label: 0 },
  ],
};
