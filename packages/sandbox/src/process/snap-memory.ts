/** The memory sizes (MB) isolates come in; a request is rounded up to the next one. */
export const ISOLATE_MEMORY_SIZES_MB = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096] as const;

/**
 * Round a requested isolate memory limit up to one of a few sizes. Isolates are pooled per size,
 * so every distinct value a policy asked for used to create a group that lived for ever (six
 * policies took an executor from 150 MB to 3.3 GB); now there are at most nine.
 */
export function snapMemoryMb(requested: number): number {
  for (const size of ISOLATE_MEMORY_SIZES_MB) if (requested <= size) return size;
  return ISOLATE_MEMORY_SIZES_MB[ISOLATE_MEMORY_SIZES_MB.length - 1];
}
