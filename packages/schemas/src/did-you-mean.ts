import { distance } from 'fastest-levenshtein';

/** How many edits a name may be from a known one and still read as a slip of it. */
function allowedEdits(name: string): number {
  if (name.length <= 4) return 1;
  return name.length <= 12 ? 2 : 3;
}

/**
 * The known name `name` is most likely a slip of (Levenshtein distance, case-insensitive first),
 * or null when none is close enough or the closest are tied.
 */
export function closestName(name: string, known: Iterable<string>): string | null {
  const lower = name.toLowerCase();
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  let tied = false;
  for (const candidate of known) {
    if (candidate === name) return null;
    const d = candidate.toLowerCase() === lower ? 0 : distance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
      tied = false;
    } else if (d === bestDistance && candidate !== best) {
      tied = true;
    }
  }
  if (best === null || tied || bestDistance > allowedEdits(name) || bestDistance >= name.length) return null;
  return best;
}

/** `; did you mean 'x'?` when `name` is close to a known name, else ''. */
export function didYouMean(name: string, known: Iterable<string>): string {
  const closest = closestName(name, known);
  return closest === null ? '' : `; did you mean '${closest}'?`;
}

/** A short list of names for a message: `a, b, c` (and how many more past `max`). */
export function listNames(names: readonly string[], max = 12): string {
  const shown = names.slice(0, max).join(', ');
  return names.length > max ? `${shown} and ${names.length - max} more` : shown;
}
