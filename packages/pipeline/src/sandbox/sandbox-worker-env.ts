/** Tells a sandbox worker which host functions its executor serves (comma-separated names). */
export const SANDBOX_HOST_FUNCTIONS_ENV = 'GUARDAGENT_SANDBOX_HOST_FUNCTIONS';
/** Recycle a worker's isolate after this many runs (GUARDAGENT_SANDBOX_MAX_RUNS_PER_ISOLATE of the executor). */
export const SANDBOX_MAX_RUNS_ENV = 'GUARDAGENT_SANDBOX_MAX_RUNS_PER_ISOLATE';
