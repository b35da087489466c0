import { redact } from "@quiesce/protocol";
import type { AgentlessHook } from "@quiesce/protocol/policy";
import type { HttpDispatcher } from "../net/undici";
import { send } from "./send";
import { type ArmCredential, bearerHeader } from "./token";

/**
 * The coordinator calling a relay's HTTP hook for a VM without a relay (policy `agentless`):
 * the same request a relay makes (POST of the hook payload as JSON; any 2xx is success), to the
 * operator's URL with `{vmName}` filled in, optionally with a bearer token of the app's identity.
 * Never throws; `detail` names the URL without its query string (which may hold a key).
 */
export interface HookCallResult {
  result: "succeeded" | "failed";
  detail: string;
}

const OUTPUT_BYTES = 1024;

export function hookUrl(hook: AgentlessHook, vmName: string): URL {
  return new URL(hook.url.replaceAll("{vmName}", encodeURIComponent(vmName)));
}

export async function callHook(
  hook: AgentlessHook,
  vmName: string,
  payload: unknown,
  deps: { credential?: ArmCredential; dispatcher: HttpDispatcher },
): Promise<HookCallResult> {
  const url = hookUrl(hook, vmName);
  const shown = `POST ${url.origin}${url.pathname}`;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (hook.bearerScope) {
    const bearer = await bearerHeader(deps.credential, hook.bearerScope);
    if (!bearer.ok) return { result: "failed", detail: bearer.error };
    Object.assign(headers, bearer.value);
  }
  const timeoutMs = hook.timeoutSeconds * 1000;
  const sent = await send(
    deps.dispatcher,
    url,
    { method: "POST", headers, body: JSON.stringify(payload) },
    { timeoutMs, maxBytes: OUTPUT_BYTES },
  );
  if (!sent.ok)
    return {
      result: "failed",
      detail:
        sent.error.kind === "timeout"
          ? `${shown} timed out after ${hook.timeoutSeconds} s`
          : redact(`${shown} failed: ${sent.error.message}`),
    };
  const { status, text } = sent.value;
  const tail = text.trim().split("\n").at(-1)?.slice(0, 200) ?? "";
  // The answer's last line is the hook's text: it may echo a header or a key (docs/security.md).
  const detail = redact(`${shown}: HTTP ${status}${tail ? `: ${tail}` : ""}`);
  return { result: status >= 200 && status <= 299 ? "succeeded" : "failed", detail };
}
