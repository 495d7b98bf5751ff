/** The few logging calls the pipeline makes; structured fields first, message second (pino style). */
export interface Logger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** One JSON line per entry on stderr. Fields never carry secrets (API keys are not in job data). */
export function jsonLogger(base: Record<string, unknown> = {}, level: 'info' | 'warn' | 'error' | 'silent' = 'info'): Logger {
  const order = { info: 0, warn: 1, error: 2, silent: 3 } as const;
  const write = (lvl: 'info' | 'warn' | 'error') => (fields: Record<string, unknown>, message: string) => {
    if (order[lvl] < order[level]) return;
    process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: lvl, msg: message, ...base, ...fields })}\n`);
  };
  return { info: write('info'), warn: write('warn'), error: write('error') };
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
