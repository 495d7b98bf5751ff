import { envName } from '@guardagent/config';

// The variables an executor sets for its sandbox workers (listed in @guardagent/config's ENV_VARIABLES).
/** Tells a sandbox worker which host functions its executor serves (comma-separated names). */
export const SANDBOX_HOST_FUNCTIONS_ENV = envName('sandboxWorker.hostFunctions');
/** Recycle a worker's isolate after this many runs (GUARDAGENT_SANDBOX_MAX_RUNS_PER_ISOLATE of the executor). */
export const SANDBOX_MAX_RUNS_ENV = envName('sandbox.maxRunsPerIsolate');
/** `off`: the worker serves without warming up first (GUARDAGENT_SANDBOX_WARM_UP of the executor; for measuring what warming saves). */
export const SANDBOX_WARM_UP_ENV = envName('sandbox.warmUp');
