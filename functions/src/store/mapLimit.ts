/**
 * fn over items, at most limit at a time, results in the items' order: several point reads or
 * queries at once, but not hundreds against one account. A file of its own so the readers that
 * use it (statusQueries, eventIndex) need not import each other.
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
