import type { Command } from 'commander';
import { ValidationError } from '@guardagent/errors';
import { EXIT_CODES, exitCodeOfDecision } from '@guardagent/client';
import type { GuardJobInput } from '@guardagent/schemas';
import { readPolicyFile } from '../policy-file';
import { readDataFile } from '../read-input-file';
import { startLocalStack } from '../local-stack';
import { ensurePolicyReady, verificationWarning } from '../ensure-policy';

export function registerCheck(program: Command): void {
  program
    .command('check')
    .description(
      `run one guard job through the real pipeline and print the decision as JSON (exit ${EXIT_CODES.OK} allow, ${EXIT_CODES.DENIED} deny, ${EXIT_CODES.PENDING} pending, ${EXIT_CODES.GUARD_ERROR} guard_error)`,
    )
    .requiredOption('--job <file>', 'guard job (YAML/JSON): input, output, optional context/subject/action; policy may be left out')
    .option('--policy <file>', 'policy file (YAML/JSON); registered, and its program verified if it has one')
    .option('--timeout <ms>', 'how long to wait for the decision', '120000')
    .option('--remote', 'use workers already running on REDIS_URL instead of starting them here')
    .action(async (options: { job: string; policy?: string; timeout: string; remote?: boolean }) => {
      const job = readDataFile(options.job);
      if (!job || typeof job !== 'object' || Array.isArray(job)) {
        throw new ValidationError(options.job, [{ path: '', message: 'a guard job must be an object' }]);
      }
      const stack = await startLocalStack({ stages: options.remote ? [] : undefined });
      try {
        const request = { ...(job as Record<string, unknown>) } as GuardJobInput;
        if (options.policy) {
          const { policy } = readPolicyFile(options.policy);
          const ready = await ensurePolicyReady(stack.client, policy);
          const warning = verificationWarning(ready);
          if (warning) process.stderr.write(warning);
          request.policy = policy.id;
        } else if (!request.policy) {
          throw new ValidationError('guard job', [{ path: 'policy', message: 'give --policy FILE or a policy in the job file' }]);
        }
        const decision = await stack.client.check(request, { timeoutMs: Number(options.timeout) });
        process.stdout.write(`${JSON.stringify(decision, null, 2)}\n`);
        process.exitCode = exitCodeOfDecision(decision);
      } finally {
        await stack.stop();
      }
    });
}
