/** Tells a sandbox worker which host functions its executor serves (comma-separated names). */
export const SANDBOX_HOST_FUNCTIONS_ENV = 'GUARDAGENT_SANDBOX_HOST_FUNCTIONS';
