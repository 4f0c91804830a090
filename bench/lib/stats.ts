// Small numeric helpers shared by benches.

/** The p-th percentile (0..100) of `values` by nearest rank; NaN for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1];
}

/** The median of `values`: the middle one, or the mean of the two middle ones for an even count. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Chunk n's order of interleaved sides: rotated by n, reversed every other round, so no side always runs first or after another. */
export function rotation<T>(sides: readonly T[], n: number): T[] {
  const k = n % sides.length;
  const order = [...sides.slice(k), ...sides.slice(0, k)];
  return Math.floor(n / sides.length) % 2 === 1 ? order.reverse() : order;
}

/** Runs `worker(i)` for i in 0..count-1 with at most `concurrency` in flight; resolves in index order. */
export async function runPool<T>(
  count: number,
  concurrency: number,
  worker: (index: number) => Promise<T>,
): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const index = next++;
      results[index] = await worker(index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, lane));
  return results;
}
