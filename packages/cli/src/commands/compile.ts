import type { Command } from 'commander';
import { EXIT_CODES, isTransientErrorCode, type ExitCode } from '@guardagent/client';
import type { CompileResult } from '@guardagent/schemas';
import { readPolicyFile } from '../policy-file';
import { startLocalStack } from '../local-stack';

/** promoted 0; not promoted 1, unless it could not compile for want of an LLM (2) or the LLM failed (6). */
function compileExitCode(result: CompileResult): ExitCode {
  if (result.status === 'promoted' || result.status === 'rails-only') return EXIT_CODES.OK;
  const code = result.status === 'error' ? result.error?.code : undefined;
  if (code === 'LLM_NOT_CONFIGURED') return EXIT_CODES.INVALID;
  return code !== undefined && isTransientErrorCode(code) ? EXIT_CODES.UNAVAILABLE : EXIT_CODES.DENIED;
}

export function registerCompile(program: Command): void {
  program
    .command('compile')
    .description(
      `compile (or verify a supplied) guard program for a policy against its labelled examples; print the report (exit ${EXIT_CODES.OK} promoted or rails-only, ${EXIT_CODES.DENIED} failed)`,
    )
    .requiredOption('--policy <file>', 'policy file (YAML/JSON)')
    .option('--timeout <ms>', 'how long to wait', '600000')
    .option('--remote', 'use workers already running on REDIS_URL')
    .action(async (options: { policy: string; timeout: string; remote?: boolean }) => {
      const { policy } = readPolicyFile(options.policy);
      // A rails-only policy has no program to compile: no workers are needed to say so.
      const railsOnly = !policy.requests?.trim() && !policy.program;
      const stack = await startLocalStack({ stages: options.remote || railsOnly ? [] : undefined });
      try {
        const result = await stack.client.compile(policy, { timeoutMs: Number(options.timeout) });
        process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        process.exitCode = compileExitCode(result);
      } finally {
        await stack.stop();
      }
    });
}
