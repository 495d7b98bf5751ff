import { parentPort } from 'node:worker_threads';
import { LRUCache } from 'lru-cache';
import { compileRails } from '../compile-rails';
import type { CompiledRails } from '../compiled-rails';
import { checkRails } from '../evaluate-rails';
import { redactPiiDeep } from '../pii/redact-pii-deep';
import { warmDetectors } from './turn-budget';
import type { SerializedCheck, WorkerReply, WorkerRequest } from './offload-types';

/**
 * A rails worker thread (see RailsWorkerPool): runs checkRails and the decision log's redaction
 * for jobs too heavy for the executor's event loop. Compiled rails are cached per key (the pool
 * names each CompiledRails once). Warms the detectors (the injection filter's slip index and
 * word-break trie) before saying it is ready, so no job pays for them.
 */
const port = parentPort;
if (!port) throw new Error('rails-worker-main runs as a worker thread');
const compiled = new LRUCache<string, CompiledRails>({ max: 200 });

warmDetectors();

port.on('message', (request: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    if (request.kind === 'check') {
      let rails = compiled.get(request.key);
      if (!rails) {
        rails = compileRails(request.config);
        compiled.set(request.key, rails);
      }
      const check = checkRails(rails, request.job, { deadlineMs: request.deadlineMs });
      const value: SerializedCheck = { state: check.state.snapshot(), checkUs: check.checkUs };
      if (check.work) {
        value.work = { tool: check.work.tool.name, args: check.work.args, subjectId: check.work.subjectId, approvalRuleIds: check.work.approvalRules.map((r) => r.ruleId) };
      }
      reply = { id: request.id, ok: true, value };
    } else {
      reply = { id: request.id, ok: true, value: redactPiiDeep(request.value) };
    }
  } catch (error) {
    reply = { id: request.id, ok: false, message: (error as Error)?.message ?? String(error) };
  }
  port.postMessage(reply);
});
port.postMessage({ ready: true } satisfies WorkerReply);
