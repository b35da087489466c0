import { delay } from "@quiesce/protocol";

/**
 * The one way tests wait: poll `probe` until it returns a value (not null, undefined or false)
 * or the deadline passes; the failure says what never happened, with the probe's last error.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  timeoutMs = 10_000,
  everyMs = 25,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== null && v !== undefined && v !== false) return v;
    } catch (e) {
      lastError = e;
    }
    if (performance.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for: ${what}${lastError ? ` (last error: ${String(lastError)})` : ""}`,
      );
    await delay(everyMs);
  }
}
