import type { Command } from 'commander';
import { readEnv } from '@guardagent/config';
import { ConfigError, ValidationError } from '@guardagent/errors';
import { startLocalStack } from '../local-stack';

export function registerFeedback(program: Command): void {
  program
    .command('feedback')
    .description('say whether a decision was right: the case becomes a labelled example (and a demonstration when the guard was right)')
    .requiredOption('--id <id>', 'the decision id')
    .requiredOption('--label <0|1>', 'the correct label: 1 = should be denied, 0 = should be allowed')
    .option('--note <text>', 'why')
    .action(async (options: { id: string; label: string; note?: string }) => {
      if (options.label !== '0' && options.label !== '1') {
        throw new ValidationError('feedback', [{ path: 'label', message: 'must be 0 or 1' }]);
      }
      if (!readEnv('redisUrl')) {
        throw new ConfigError('feedback needs REDIS_URL: decisions live in the Redis the workers use (a private redis-server is gone when its command ends)');
      }
      const stack = await startLocalStack({ stages: ['memory'] });
      try {
        const result = await stack.client.feedback(options.id, { correctLabel: Number(options.label) as 0 | 1, ...(options.note ? { note: options.note } : {}) });
        process.stdout.write(`${JSON.stringify({ id: options.id, label: Number(options.label), ...result })}\n`);
      } finally {
        await stack.stop();
      }
    });
}
