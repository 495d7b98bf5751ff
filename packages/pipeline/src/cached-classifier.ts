import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { classifyPrompt, parseClassifyReply, type Llm } from '@guardagent/llm';
import { keys } from '@guardagent/queue';

/**
 * LLM-backed classification for toolbox functions, cached in Redis by a hash of its input:
 * the same question is asked of the LLM once, then served from the cache by every executor.
 * The cache is per tenant, so its timing tells no tenant what another one asked.
 */
export interface ClassifyCallOptions {
  /** Cancels the LLM request (the guard run ended). */
  signal?: AbortSignal;
  /** Told the tokens an LLM request spent (not called on a cache hit). */
  onUsage?: (usage: { promptTokens: number; completionTokens: number }) => void;
}

export function cachedClassifier(llm: Llm, redis: Redis, prefix: string, tenant: string, ttlSeconds = 30 * 86_400) {
  const k = keys(prefix);
  return async (text: string, categories: string[], instruction?: string, options: ClassifyCallOptions = {}): Promise<string> => {
    const hash = createHash('sha256').update(JSON.stringify(['classify', text, categories, instruction ?? ''])).digest('hex');
    const cached = await redis.get(k.llmCache(tenant, hash));
    if (cached !== null) return cached;
    const reply = await llm.chat(classifyPrompt(text, categories, instruction), { purpose: 'classify', ...(options.signal ? { signal: options.signal } : {}) });
    options.onUsage?.({ promptTokens: reply.usage.promptTokens, completionTokens: reply.usage.completionTokens });
    const answer = parseClassifyReply(reply.text, categories);
    await redis.set(k.llmCache(tenant, hash), answer, 'EX', ttlSeconds);
    return answer;
  };
}
