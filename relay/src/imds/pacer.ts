import { delay } from "@quiesce/protocol";

/**
 * IMDS throttles above 5 requests per second per VM. Every request to it (GET and POST) takes a
 * slot here first, so no retry storm or directive burst can exceed that: at most `perSecond`
 * requests start in any `windowMs` (1 s). A sliding window, not a fixed spacing: spacing every
 * request 200 ms apart made the StartRequests POST that follows a document poll wait up to
 * 200 ms for nothing (bench (a): about 170 ms of the 190 ms from a drain's end to StartRequests),
 * although two requests in a second are far inside the limit.
 */
export class Pacer {
  /** Start times of the requests of the last window, oldest first. */
  private readonly starts: number[] = [];

  constructor(
    private readonly perSecond = 5,
    private readonly windowMs = 1000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  async slot(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const t = this.now();
      while (this.starts.length > 0 && t - (this.starts[0] as number) >= this.windowMs)
        this.starts.shift();
      if (this.starts.length < this.perSecond) {
        this.starts.push(t);
        return;
      }
      await delay((this.starts[0] as number) + this.windowMs - t, signal);
      if (signal?.aborted) return;
    }
  }
}
