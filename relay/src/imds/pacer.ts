import { delay } from "../clock";

/**
 * IMDS throttles above 5 requests per second per VM. Every request to it (GET and POST) takes a
 * slot here first, so no retry storm or directive burst can exceed that.
 */
export class Pacer {
  private next = 0;
  constructor(private readonly minIntervalMs = 200) {}

  async slot(signal?: AbortSignal): Promise<void> {
    const now = performance.now();
    const at = Math.max(now, this.next);
    this.next = at + this.minIntervalMs;
    if (at > now) await delay(at - now, signal);
  }
}
