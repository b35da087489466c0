import { HttpTimeoutError, httpRequest } from "../http/request";
import { errorText } from "../log";
import { type HookOutcome, lastLine, OUTPUT_LIMIT_BYTES } from "./outcome";

export interface HttpHook {
  url: string;
  body: string;
  timeoutMs: number;
  signal: AbortSignal;
}

/** POST the event JSON to a local endpoint (e.g. the application's own drain route); 2xx = done. */
export async function runHttpHook(h: HttpHook): Promise<HookOutcome> {
  try {
    const res = await httpRequest({
      method: "POST",
      url: h.url,
      headers: { "content-type": "application/json" },
      body: h.body,
      timeoutMs: h.timeoutMs,
      signal: h.signal,
    });
    const output = res.body.slice(-OUTPUT_LIMIT_BYTES);
    const tail = lastLine(output);
    const detail = `HTTP ${res.status}${tail ? `: ${tail}` : ""}`;
    const ok = res.status >= 200 && res.status <= 299;
    return { result: ok ? "succeeded" : "failed", detail, output };
  } catch (e) {
    if (h.signal.aborted)
      return { result: "interrupted", detail: "relay stopped while the hook ran", output: "" };
    if (e instanceof HttpTimeoutError) {
      return {
        result: "failed",
        detail: `timed out after ${Math.round(h.timeoutMs / 1000)} s`,
        output: "",
      };
    }
    return { result: "failed", detail: `POST ${h.url} failed: ${errorText(e)}`, output: "" };
  }
}
