export { CorpusTextSchema, INJECTION_CORPUS_PATH, loadDetectorCorpus, type CorpusText } from './detector-corpus';
export { evaluateDetector, type DetectionStats, type DetectorReport } from './evaluate-detector';
export { formatDetectorReport } from './format-detector-report';
export { evaluateInjectionDetector } from './injection-section';
export { evaluatePiiDetector, formatPiiReport, loadPiiCorpus, PII_CORPUS_PATH, PiiCorpusTextSchema, type PiiCorpusText, type PiiReport, type SpanStats } from './pii-section';
export { ENCODINGS, evaluateIntentSets, formatIntentReport, INTENTS_CORPUS_PATH, TABLES, type IntentReport, type SliceRates } from './intent-section';
