/** Order statistics over a handful of samples (nearest-rank percentiles). */

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

export const median = (values: readonly number[]) => percentile(values, 50);

export function summary(values: readonly number[]) {
  return {
    n: values.length,
    median: median(values),
    p90: percentile(values, 90),
    min: Math.min(...values),
    max: Math.max(...values),
  };
}
export type Summary = ReturnType<typeof summary>;

export const round = (v: number, digits = 3) => Number(v.toFixed(digits));
