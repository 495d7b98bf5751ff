import { GuardAgentError } from './guard-agent-error';

/**
 * The API key is valid but lacks the scope this request needs (an agent's `check` key asking to
 * change a policy). `scope` names what was missing, so the operator knows which key to use.
 */
export class ScopeRequiredError extends GuardAgentError {
  readonly code = 'SCOPE_REQUIRED';
  readonly scope: string;
  constructor(scope: string, what: string) {
    super(`${what} needs an API key with scope '${scope}'`, { scope });
    this.scope = scope;
  }
}
