/** How a hook ended. `interrupted` means the relay stopped it (shutdown): it will run again. */
export type HookOutcome =
  | { result: "succeeded"; detail: string; output: string }
  | { result: "failed"; detail: string; output: string }
  | { result: "interrupted"; detail: string; output: string };

/** Output is kept bounded: the tail is what explains a failure. */
export const OUTPUT_LIMIT_BYTES = 16 * 1024;

export class OutputTail {
  private chunks: Buffer[] = [];
  private size = 0;
  private dropped = 0;

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > OUTPUT_LIMIT_BYTES && this.chunks.length > 1) {
      const first = this.chunks.shift() as Buffer;
      this.size -= first.length;
      this.dropped += first.length;
    }
  }

  text(): string {
    let all = Buffer.concat(this.chunks);
    if (all.length > OUTPUT_LIMIT_BYTES) {
      this.dropped += all.length - OUTPUT_LIMIT_BYTES;
      all = all.subarray(all.length - OUTPUT_LIMIT_BYTES);
    }
    const head = this.dropped > 0 ? `[${this.dropped} earlier bytes dropped]\n` : "";
    return head + all.toString("utf8");
  }
}

export function lastLine(text: string): string {
  const lines = text.trimEnd().split(/\r?\n/);
  return (lines[lines.length - 1] ?? "").slice(0, 300);
}
