import { z } from 'zod';
import { ActionSchema, JsonObjectSchema, SubjectSchema, TextOrJsonSchema } from '@guardagent/schemas';

/**
 * Ids become (namespaced) idempotency keys, which are at most 256 characters: 200 leaves room
 * for the namespace.
 */
const MAX_BATCH_ID_CHARS = 200;

/**
 * One line of a batch input file. The policy comes from --policy, never from a line, so one
 * file is always judged by one policy.
 */
export const BatchLineSchema = z
  .object({
    id: z.string().min(1).max(MAX_BATCH_ID_CHARS),
    input: TextOrJsonSchema,
    output: TextOrJsonSchema,
    context: JsonObjectSchema.optional(),
    subject: SubjectSchema.optional(),
    action: ActionSchema.optional(),
  })
  .strict();
export type BatchLine = z.output<typeof BatchLineSchema>;
