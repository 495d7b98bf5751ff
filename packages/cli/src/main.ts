import { Command, CommanderError } from 'commander';
import { GuardAgentError, ValidationError } from '@guardagent/errors';
import { EXIT_CODES, exitCodeOfError } from '@guardagent/client';
import { createRequire } from 'node:module';
import { formatValidationError } from './format-issues';
import { findNpmLauncher } from './process/npm-launcher';
import { watchLauncher } from './process/watch-launcher';

type Register = (program: Command) => void;

/**
 * Each command's module, loaded only when that command runs (or for the full help): a command
 * then loads only what it uses, e.g. `approve` and `keys` (HTTP calls) never load the pipeline,
 * the benchmarks or the gateway. In the order the help lists them.
 */
const COMMANDS: Record<string, () => Promise<Register>> = {
  up: async () => (await import('./commands/up')).registerUp,
  check: async () => (await import('./commands/check')).registerCheck,
  compile: async () => (await import('./commands/compile')).registerCompile,
  batch: async () => (await import('./commands/batch')).registerBatch,
  feedback: async () => (await import('./commands/feedback')).registerFeedback,
  eval: async () => (await import('./commands/eval')).registerEval,
  demo: async () => (await import('./commands/demo')).registerDemo,
  policy: async () => (await import('./commands/policy')).registerPolicy,
  tenants: async () => (await import('./commands/tenants')).registerTenants,
  approve: async () => (await import('./commands/approve')).registerApprove,
  log: async () => (await import('./commands/log')).registerLog,
  replay: async () => (await import('./commands/replay')).registerReplay,
  memory: async () => (await import('./commands/memory')).registerMemory,
  mcp: async () => (await import('./commands/mcp')).registerMcp,
  keys: async () => (await import('./commands/keys')).registerKeys,
  shards: async () => (await import('./commands/shards')).registerShards,
};

// Started by npx / npm exec: npm and the shell it runs us through do not pass on a SIGKILL, so
// stop (as on SIGTERM: a batch keeps what it wrote and can resume) once that npm process is gone.
const launcher = findNpmLauncher(process.env);
if (launcher !== null) {
  watchLauncher(launcher, () => {
    process.stderr.write(`guardagent: the npm process that started this command (pid ${launcher}) is gone; stopping\n`);
    process.kill(process.pid, 'SIGTERM');
  });
}

const program = new Command()
  .name('guardagent')
  .description('GuardAgent: guard LLM agents with verified guard programs, rails and LLM-written code')
  .showHelpAfterError()
  .exitOverride();

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };
program.version(version, '-V, --version', 'print the version');

try {
  // `--version` needs no command: answer it before loading any (loading them all took ~1.5 s).
  if (process.argv[2] === '--version' || process.argv[2] === '-V') {
    process.stdout.write(`${version}\n`);
    process.exit(0);
  }
  // The first word that is not an option names the command; anything else (no command, `help`,
  // a typo) registers them all, for the help and for commander's suggestions.
  const named = process.argv.slice(2).find((arg) => !arg.startsWith('-'));
  for (const name of named !== undefined && Object.hasOwn(COMMANDS, named) ? [named] : Object.keys(COMMANDS)) {
    (await COMMANDS[name]())(program);
  }
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Help and --version end with 0; a usage mistake (unknown command or option, a missing one) is INVALID.
    process.exitCode = error.exitCode === 0 ? EXIT_CODES.OK : EXIT_CODES.INVALID;
  } else if (error instanceof ValidationError) {
    process.stderr.write(formatValidationError(error));
    process.exitCode = EXIT_CODES.INVALID;
  } else if (error instanceof GuardAgentError) {
    process.stderr.write(`guardagent: ${error.code}: ${error.message}\n`);
    process.exitCode = exitCodeOfError(error);
  } else {
    process.stderr.write(`guardagent: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = exitCodeOfError(error);
  }
}
