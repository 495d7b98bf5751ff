import { detectInjection } from '@guardagent/rails';
import { InjectionFilterSchema } from '@guardagent/schemas';
import { INJECTION_CORPUS_PATH, loadDetectorCorpus } from './detector-corpus';
import { evaluateDetector, type DetectorReport } from './evaluate-detector';

/** The rails' prompt-injection detector on the injection corpus, at the policies' default threshold. */
export function evaluateInjectionDetector(path: string = INJECTION_CORPUS_PATH, rounds = 3): DetectorReport {
  const threshold = InjectionFilterSchema.parse({}).threshold;
  return evaluateDetector('rails injection detector', loadDetectorCorpus(path), (text) => detectInjection(text).score, threshold, rounds);
}
