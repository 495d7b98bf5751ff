import { Command, CommanderError } from 'commander';
import { GuardAgentError } from '@guardagent/errors';
import { registerUp } from './commands/up';
import { registerCheck } from './commands/check';
import { registerCompile } from './commands/compile';
import { registerBatch } from './commands/batch';
import { registerFeedback } from './commands/feedback';
import { registerEval } from './commands/eval';
import { registerDemo } from './commands/demo';
import { registerApprove } from './commands/approve';
import { registerMemory } from './commands/memory';
import { registerMcp } from './commands/mcp';
import { registerKeys } from './commands/keys';
import { registerLog } from './commands/log';
import { registerReplay } from './commands/replay';
import { findNpmLauncher } from './process/npm-launcher';
import { watchLauncher } from './process/watch-launcher';

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

registerUp(program);
registerCheck(program);
registerCompile(program);
registerBatch(program);
registerFeedback(program);
registerEval(program);
registerDemo(program);
registerApprove(program);
registerLog(program);
registerReplay(program);
registerMemory(program);
registerMcp(program);
registerKeys(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode;
  } else if (error instanceof GuardAgentError) {
    process.stderr.write(`guardagent: ${error.code}: ${error.message}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`guardagent: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = 2;
  }
}
