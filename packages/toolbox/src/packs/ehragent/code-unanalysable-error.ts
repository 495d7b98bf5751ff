import { GuardAgentError } from '@guardagent/errors';

/**
 * The analyser could not follow everything the code does (see CodeAnalysis.unanalysable), so the
 * tables it reports may be incomplete: the guard fails (closed) rather than allowing on them.
 */
export class CodeUnanalysableError extends GuardAgentError {
  readonly code = 'CODE_UNANALYSABLE';

  constructor(readonly reasons: readonly string[]) {
    super(`the generated code's data access cannot be fully analysed: ${reasons.join('; ')}`, { reasons: [...reasons] });
  }
}
