import type { Reporter, TestModule, TestSpecification } from 'vitest/node';

/**
 * Progress for runs whose output is not a terminal (CI, a pipe, a log file), where vitest's
 * default reporter prints a file only when it ends: with the slowest files scheduled first, that
 * was minutes of silence. This prints the plan at once and a running count (files done, failed,
 * still running and for how long) every INTERVAL_MS. The default
 * reporter, next to it, still prints each file's result and the failures.
 */
const INTERVAL_MS = 20_000;

const clock = (ms: number) => `${Math.floor(ms / 60_000)}m${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')}s`;

export default class ProgressReporter implements Reporter {
  private readonly started = Date.now();
  private total = 0;
  private done = 0;
  private failed = 0;
  private readonly running = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.total = specifications.length;
    this.write(`${this.total} test files, progress every ${INTERVAL_MS / 1000} s`);
    this.timer = setInterval(() => this.write(this.status()), INTERVAL_MS);
    this.timer.unref();
  }

  onTestModuleStart(module: TestModule): void {
    this.running.set(module.relativeModuleId, Date.now());
  }

  onTestModuleEnd(module: TestModule): void {
    this.running.delete(module.relativeModuleId);
    this.done += 1;
    if (module.state() === 'failed') this.failed += 1;
  }

  onTestRunEnd(): void {
    clearInterval(this.timer);
  }

  private status(): string {
    const now = Date.now();
    const running = [...this.running].map(([file, since]) => `${file} (${Math.round((now - since) / 1000)} s)`).join(', ');
    return `${this.done}/${this.total} files done, ${this.failed} failed${running ? `; running: ${running}` : ''}`;
  }

  private write(text: string): void {
    process.stdout.write(`[progress ${clock(Date.now() - this.started)}] ${text}\n`);
  }
}
