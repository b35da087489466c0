/**
 * Promises that resolve once a condition holds, each with its own deadline: what tests wait on
 * instead of sleeping. `wake()` is called after every change that could make the condition true.
 */
export class Waiters<T> {
  private list: Array<() => void> = [];

  constructor(
    private readonly ready: () => boolean,
    private readonly value: () => T,
  ) {}

  wait(timeoutMs: number, what: () => string): Promise<T> {
    if (this.ready()) return Promise.resolve(this.value());
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        resolve(this.value());
      };
      const timer = setTimeout(() => {
        this.list = this.list.filter((w) => w !== done);
        reject(new Error(`${what()} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.list.push(done);
    });
  }

  wake(): void {
    if (this.list.length === 0 || !this.ready()) return;
    const list = this.list;
    this.list = [];
    for (const w of list) w();
  }
}
