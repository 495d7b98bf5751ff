import { PolicySchema, type Policy } from './policy';
import { parseYamlText, type YamlText } from './yaml-text';

/**
 * Parse a policy file's text (YAML, of which JSON is a subset) and validate it: a mistake is a
 * ValidationError naming each field with its line and column (and the closest known name for a
 * mistyped field or value).
 */
export function parsePolicyText(text: string, source = 'policy'): Policy {
  return readPolicyText(text, source).policy;
}

/** parsePolicyText, keeping the text (to place later issues, such as the rails', on their lines). */
export function readPolicyText(text: string, source = 'policy'): { policy: Policy; text: YamlText } {
  const { value, text: yaml } = parseYamlText(PolicySchema, text, source);
  return { policy: value, text: yaml };
}
