/** One field of an INFO reply (`name:value` lines), or null when absent. */
export function infoField(info: string, name: string): string | null {
  const line = info.split('\n').find((l) => l.startsWith(`${name}:`));
  return line ? line.slice(name.length + 1).trim() : null;
}

/** What an `INFO memory` reply says about room: used and max bytes (max 0: no limit). */
export function parseMemoryInfo(info: string): { usedBytes: number; maxBytes: number } {
  return { usedBytes: Number(infoField(info, 'used_memory')) || 0, maxBytes: Number(infoField(info, 'maxmemory')) || 0 };
}
