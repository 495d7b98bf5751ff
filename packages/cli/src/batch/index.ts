export { parseBatchLine } from './parse-batch-line';
export { BatchInputError } from './batch-input-error';
export { BatchOutputError } from './batch-output-error';
export { batchKey, lineIdempotencyKey } from './batch-key';
export { decisionLine } from './decision-line';
export { prepareOutput } from './prepare-output';
export { readLines, countNonBlankLines } from './read-lines';
export { batchExitCode } from './batch-exit-code';
