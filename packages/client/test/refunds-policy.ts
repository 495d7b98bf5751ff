/** A compiled policy the client tests check through: refunds over 100 are denied; its examples verify it without an LLM. */
export const refundsPolicy = {
  id: 'refunds',
  requests: 'Deny any refund over 100.',
  mode: 'compiled' as const,
  program: "return Number(context.amount) > 100 ? { deny: true, reasons: ['over 100'] } : { deny: false };",
  examples: [
    { input: 'r', context: { amount: 500 }, label: 1 as const },
    { input: 'r', context: { amount: 5 }, label: 0 as const },
  ],
};
