const RELATIVE = /^(\d{1,9})(s|m|h|d)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * A point in time as operators write it: a duration back from `now` (`90s`, `30m`, `24h`, `7d`)
 * or an ISO-8601 date (`2026-11-24T00:00:00Z`). Milliseconds since the epoch, or null when the
 * text is neither.
 */
export function parseSince(text: string, now: number): number | null {
  const relative = RELATIVE.exec(text.trim());
  if (relative) return now - Number(relative[1]) * UNIT_MS[relative[2] as keyof typeof UNIT_MS];
  if (!/^\d{4}-\d{2}-\d{2}/.test(text.trim())) return null;
  const at = Date.parse(text.trim());
  return Number.isFinite(at) ? at : null;
}
