/**
 * How long the server asked us to wait, in milliseconds, or undefined when it did not say.
 *
 * Azure Resource Manager answers a throttled request with 429 and a `Retry-After` header: "the
 * number of seconds your application should wait (or sleep) before sending the next request. If
 * you send a request before the retry value has elapsed, your request isn't processed and a new
 * retry value is returned" (learn.microsoft.com/azure/azure-resource-manager/management/
 * request-limits-and-throttling). Some resource providers also send `x-ms-retry-after-ms` /
 * `retry-after-ms` (milliseconds), which Azure's own SDK retry policy reads first
 * (@azure/core-rest-pipeline throttlingRetryStrategy: "retry-after-ms", "x-ms-retry-after-ms",
 * "Retry-After"); RFC 9110 allows `Retry-After` as delta-seconds or an HTTP-date.
 */
export function retryAfterMs(
  header: (name: string) => string | undefined,
  nowMs: number,
): number | undefined {
  for (const name of ["x-ms-retry-after-ms", "retry-after-ms"]) {
    const ms = nonNegative(header(name));
    if (ms !== undefined) return ms;
  }
  const value = header("retry-after")?.trim();
  if (!value) return undefined;
  const seconds = nonNegative(value);
  if (seconds !== undefined) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

function nonNegative(text: string | undefined): number | undefined {
  if (text === undefined || !/^\s*\d+(\.\d+)?\s*$/.test(text)) return undefined;
  return Number(text);
}
