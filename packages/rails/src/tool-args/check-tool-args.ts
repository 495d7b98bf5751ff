import type { PiiKind, ToolCallAction } from '@guardagent/schemas';
import type { CompiledRails } from '../compiled-rails';
import { PII_NAMES, type CheckState } from '../check-text';
import { detectInjection } from '../injection/detect-injection';
import { detectPii, detectPiiAfterLabel, type PiiFinding } from '../pii/detect-pii';
import { argPath, readToolArgs, type ArgText } from './read-tool-args';
import { COLLIDING_KEYS, redactJsonTexts } from './redact-json';

/** Reasons naming one argument's PII, at most; the rest are counted in one more reason. */
const MAX_ARG_PII_REASONS = 10;
/** When the arguments read together are an injection, this many of them are read alone to name the one that is. */
const MAX_LOCALIZED_TEXTS = 256;
const MAX_LOCALIZED_CHARS = 200_000;

type Args = Record<string, unknown>;

/**
 * The input rails over a tool call's arguments: every string, key and long integer
 * (readToolArgs), as the rails read input text. Returns the arguments the tool checks judge: the
 * redacted ones when the PII filter redacts (`state.redacted.args`, what the tool must run with),
 * else the call's own. Fail closed: arguments too deep or too many to read deny the call, and so do
 * two keys of one object that are the same once redacted.
 *
 * - Injection: the texts are read together three ways, so that an instruction split over several
 *   arguments or between a key and its value is still read: one per line (in document order, each
 *   key before its value), joined by spaces, and the values alone joined by spaces (one detector
 *   call; a token flood counts only within one text). When the score crosses the threshold, the
 *   arguments are read one by one to name the one that does (`action.args.body`), or the reason
 *   says it took several.
 * - PII: each value on its own and after its key (`"ssn": "123456789"`), each key on its own.
 *   deny / redact / log act as on input text; the reasons name each argument's path.
 */
export function checkToolArgs(action: ToolCallAction, compiled: CompiledRails, state: CheckState): Args {
  const args = (action.args ?? {}) as Args;
  const pii = compiled.input.pii;
  const threshold = compiled.input.injection?.threshold;
  if (!pii && threshold === undefined) return args;
  const reading = readToolArgs(args);
  if (!reading.ok) {
    state.deny = true;
    state.fire('input.args.unread', `the arguments of '${action.tool}' were not read by the input filters: ${reading.reason}; denied`);
    return args;
  }
  const { texts } = reading;
  if (texts.length === 0) return args;
  const keyShows = keyVisibility();
  if (threshold !== undefined) checkArgsInjection(texts, threshold, state, keyShows);
  if (!pii || state.pastDeadline()) return args;

  const found: Array<{ text: ArgText; findings: PiiFinding[] }> = [];
  for (let i = 0; i < texts.length; i++) {
    if ((i & 63) === 0 && state.pastDeadline()) return args;
    const text = texts[i]!;
    const findings = text.kind === 'value' ? detectPiiAfterLabel(text.text, text.label, pii.kinds) : detectPii(text.text, pii.kinds);
    if (findings.length > 0) found.push({ text, findings });
  }
  if (found.length === 0) return args;

  const counts = new Map<PiiKind, number>();
  let reasons = 0;
  let unnamed = 0;
  let lastRule = '';
  for (const { text, findings } of found) {
    const kinds = new Set<PiiKind>();
    for (const f of findings) {
      counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1);
      kinds.add(f.kind);
    }
    const where = `tool-call argument ${text.kind === 'key' ? 'key ' : ''}${argPath(text.segments, keyShows)}`;
    for (const kind of kinds) {
      lastRule = `input.pii.${kind}`;
      if (pii.action === 'deny') state.deny = true;
      if (reasons >= MAX_ARG_PII_REASONS) {
        unnamed++;
        state.fire(lastRule);
        continue;
      }
      reasons++;
      const name = PII_NAMES[kind];
      state.fire(lastRule, pii.action === 'deny' ? `${where} contains ${name}` : pii.action === 'redact' ? `${where}: ${name} redacted` : `${where} contains ${name} (logged)`);
    }
  }
  if (unnamed > 0) state.fire(lastRule, `and ${unnamed} more finding${unnamed === 1 ? '' : 's'} of PII in tool-call arguments`);
  for (const [kind, count] of counts) state.findings.pii.push({ where: 'args', kind, count });
  if (pii.action !== 'redact') return args;

  const redacted = redactJsonTexts(args, found, 'refuse');
  if (redacted === COLLIDING_KEYS) {
    state.deny = true;
    state.fire('input.args.unredactable', `tool-call arguments of '${action.tool}': two keys of one object are the same once redacted; denied`);
    return args;
  }
  state.redacted.args = redacted as Args;
  state.hasRedaction = true;
  return redacted as Args;
}

/** Whether a key may be written out in a path: it holds no PII of any kind (cached per call). */
function keyVisibility(): (key: string) => boolean {
  const seen = new Map<string, boolean>();
  return (key) => {
    let shows = seen.get(key);
    if (shows === undefined) {
      shows = detectPii(key).length === 0;
      seen.set(key, shows);
    }
    return shows;
  };
}

function checkArgsInjection(texts: readonly ArgText[], threshold: number, state: CheckState, keyShows: (key: string) => boolean): void {
  if (state.pastDeadline()) return;
  const all = texts.map((t) => t.text);
  const values = texts.filter((t) => t.kind === 'value').map((t) => t.text);
  // One call over the three readings (the detector's fixed cost is most of a short call's):
  // its signals are a set, so reading the same texts three times changes nothing but what the
  // joins reveal. Token floods are looked for in each text alone.
  const best = detectInjection([all.join('\n'), all.join(' '), values.join(' ')].join('\n'), { floodIn: all });
  if (!state.findings.injection || best.score > state.findings.injection.score) state.findings.injection = best;
  if (!(best.score > 0 && best.score >= threshold)) return;
  state.deny = true;
  let where = 'tool-call arguments read together look';
  let chars = 0;
  for (let i = 0; i < texts.length && i < MAX_LOCALIZED_TEXTS && chars < MAX_LOCALIZED_CHARS && !state.pastDeadline(); i++) {
    const text = texts[i]!;
    chars += text.text.length;
    if (detectInjection(text.text).score >= threshold) {
      where = `tool-call argument ${text.kind === 'key' ? 'key ' : ''}${argPath(text.segments, keyShows)} looks`;
      break;
    }
  }
  state.fire('input.injection', `${where} like a prompt injection (score ${best.score} >= ${threshold}: ${best.signals.join(', ')})`);
}
