import { z } from 'zod';
import { envName, readEnv, type EnvKey } from '@guardagent/config';
import { ConfigError } from '@guardagent/errors';
import { safeUrl } from './redact';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const OPENAI_DEFAULT_MODEL = 'gpt-4o';
export const DEFAULT_LLM_TIMEOUT_MS = 60_000;
export const DEFAULT_LLM_MAX_RETRIES = 2;

export const LlmConfigSchema = z
  .object({
    baseURL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
    /** 'none' for endpoints that take no key (Ollama, llama.cpp). */
    apiKey: z.string().min(1, 'must not be empty'),
    model: z.string().trim().min(1, 'must not be empty'),
    timeoutMs: z.number().int().positive().max(3_600_000),
    maxRetries: z.number().int().min(0).max(10),
  })
  .strict();
export type LlmConfig = z.infer<typeof LlmConfigSchema>;

/** Which environment variable feeds each config field, to name it in errors. */
const ENV_KEY = {
  baseURL: 'llm.baseUrl',
  apiKey: 'llm.apiKey',
  model: 'llm.model',
  timeoutMs: 'llm.timeoutMs',
  maxRetries: 'llm.maxRetries',
} as const satisfies Record<keyof LlmConfig, EnvKey>;
const ENV_NAME = Object.fromEntries(Object.entries(ENV_KEY).map(([field, key]) => [field, envName(key)])) as Record<keyof LlmConfig, string>;

/**
 * Validate a config built in code. Errors name the field and never echo values (the key may be
 * among them).
 */
export function parseLlmConfig(value: unknown, names: Partial<Record<string, string>> = {}): LlmConfig {
  const result = LlmConfigSchema.safeParse(value);
  if (result.success) return result.data;
  const fields = result.error.issues.map((issue) => {
    const key = String(issue.path[0] ?? '');
    return { field: names[key] ?? (key || '(root)'), message: issue.message };
  });
  throw new ConfigError(`Invalid LLM configuration: ${fields.map((f) => `${f.field} ${f.message}`).join('; ')}`, {
    fields,
  });
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function intFromEnv(env: NodeJS.ProcessEnv, key: EnvKey, fallback: number): number {
  const name = envName(key);
  const raw = nonEmpty(readEnv(key, env));
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a non-negative integer`, { field: name });
  return Number(raw);
}

/**
 * The LLM endpoint from the environment, or null when none is configured.
 * - GUARDAGENT_LLM_BASE_URL: any OpenAI-compatible endpoint; then GUARDAGENT_LLM_MODEL is required.
 * - No base URL but an API key (GUARDAGENT_LLM_API_KEY or OPENAI_API_KEY): api.openai.com, model
 *   GUARDAGENT_LLM_MODEL or gpt-4o.
 * - API key: GUARDAGENT_LLM_API_KEY, else OPENAI_API_KEY, else 'none' (keyless local servers).
 */
export function llmConfigFromEnv(env: NodeJS.ProcessEnv = process.env): LlmConfig | null {
  const baseURL = nonEmpty(readEnv('llm.baseUrl', env));
  const apiKey = nonEmpty(readEnv('llm.apiKey', env)) ?? nonEmpty(readEnv('openaiApiKey', env));
  let model = nonEmpty(readEnv('llm.model', env));

  if (!baseURL && !apiKey) return null;
  if (baseURL && !model) {
    throw new ConfigError(
      `${ENV_NAME.model} is required when ${ENV_NAME.baseURL} is set (e.g. ${ENV_NAME.model}=llama3.1 for Ollama)`,
      { field: ENV_NAME.model },
    );
  }
  model ??= OPENAI_DEFAULT_MODEL;

  return parseLlmConfig(
    {
      baseURL: baseURL ?? OPENAI_DEFAULT_BASE_URL,
      apiKey: apiKey ?? 'none',
      model,
      timeoutMs: intFromEnv(env, ENV_KEY.timeoutMs, DEFAULT_LLM_TIMEOUT_MS),
      maxRetries: intFromEnv(env, ENV_KEY.maxRetries, DEFAULT_LLM_MAX_RETRIES),
    },
    ENV_NAME,
  );
}

/** The config without its key, for logs and status pages. */
export function describeLlmConfig(config: LlmConfig): {
  baseURL: string;
  model: string;
  timeoutMs: number;
  maxRetries: number;
  apiKey: 'set' | 'none';
} {
  return {
    baseURL: safeUrl(config.baseURL),
    model: config.model,
    timeoutMs: config.timeoutMs,
    maxRetries: config.maxRetries,
    apiKey: config.apiKey && config.apiKey !== 'none' ? 'set' : 'none',
  };
}
