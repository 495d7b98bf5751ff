// What a process that only reads decisions needs to answer a job the workers gave up on
// (`@guardagent/pipeline/answers`): the gateway answers such a job on a result read, whichever
// of it and the executor's sweeper sees it first. Its own entry, so the gateway loads neither the
// worker runtime, the sandbox host nor the toolbox.
export { answerFailedJob, type AnswerFailedJobDeps } from './answer-failed-job';
export { storedADecision, DECIDED_RETURN_VALUE } from './decided-job';
