import { LRUCache } from 'lru-cache';
import type { CodeRef } from './messages';

/** Programs one worker keeps by number, by default: a worker serves every tenant's programs. */
export const DEFAULT_MAX_CODES_PER_WORKER = 64;
/** And their text in characters, together (guard code is at most 1,000,000 characters). */
const DEFAULT_MAX_CODE_CHARS_PER_WORKER = 8 * 1024 * 1024;

/**
 * The guard code an executor has sent one worker, by the number it was sent under (see
 * CodeRefSchema). Evictions are handed to the worker with the next run (`takeForgotten`), so the
 * worker holds exactly what this cache holds.
 */
export class SentCode {
  private nextId = 0;
  private forgotten: number[] = [];
  private readonly ids: LRUCache<string, number>;

  constructor(
    maxCodes = DEFAULT_MAX_CODES_PER_WORKER,
    private readonly maxChars = DEFAULT_MAX_CODE_CHARS_PER_WORKER,
  ) {
    this.ids = new LRUCache<string, number>({
      max: maxCodes,
      maxSize: maxChars,
      sizeCalculation: (_id, code) => Math.max(1, code.length),
      dispose: (id) => {
        this.forgotten.push(id);
      },
    });
  }

  /** How to send `code` to the worker: its number, with the text the first time. */
  ref(code: string): CodeRef {
    const known = this.ids.get(code);
    if (known !== undefined) return { id: known };
    const id = this.nextId++;
    // Code larger than the whole cache is sent with every run, and dropped once its message is read.
    if (code.length <= this.maxChars) this.ids.set(code, id);
    else this.forgotten.push(id);
    return { id, text: code };
  }

  /**
   * Numbers the worker should drop: those evicted since the last call. They go with the message
   * whose refs evicted them, and the worker drops them after it has read that message's code (an
   * eviction can hit code an earlier run of the same message refers to).
   */
  takeForgotten(): number[] {
    const ids = this.forgotten;
    this.forgotten = [];
    return ids;
  }
}
