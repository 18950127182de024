/** A list cut into parts of at most `size` items (statements' parameter limit, queue batches). */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  if (size < 1) throw new RangeError("chunk size must be positive");
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
