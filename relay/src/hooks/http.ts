import { request } from "undici";
import { errorText } from "../log";
import { type HookOutcome, lastLine, OutputTail } from "./outcome";

export interface HttpHook {
  url: string;
  body: string;
  timeoutMs: number;
  signal: AbortSignal;
}

/** POST the event JSON to a local endpoint (e.g. the application's own drain route); 2xx = done. */
export async function runHttpHook(h: HttpHook): Promise<HookOutcome> {
  const timeout = AbortSignal.timeout(h.timeoutMs);
  const signal = AbortSignal.any([h.signal, timeout]);
  const output = new OutputTail();
  try {
    const res = await request(h.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: h.body,
      signal,
      headersTimeout: h.timeoutMs,
      bodyTimeout: h.timeoutMs,
    });
    for await (const chunk of res.body) output.push(chunk as Buffer);
    const text = output.text();
    const tail = lastLine(text);
    const detail = `HTTP ${res.statusCode}${tail ? `: ${tail}` : ""}`;
    const ok = res.statusCode >= 200 && res.statusCode <= 299;
    return { result: ok ? "succeeded" : "failed", detail, output: text };
  } catch (e) {
    if (h.signal.aborted)
      return {
        result: "interrupted",
        detail: "relay stopped while the hook ran",
        output: output.text(),
      };
    if (timeout.aborted)
      return {
        result: "failed",
        detail: `timed out after ${Math.round(h.timeoutMs / 1000)} s`,
        output: output.text(),
      };
    return {
      result: "failed",
      detail: `POST ${h.url} failed: ${errorText(e)}`,
      output: output.text(),
    };
  }
}
