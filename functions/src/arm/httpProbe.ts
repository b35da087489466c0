import { redact } from "@quiesce/protocol";
import type { HttpDispatcher } from "../net/undici";
import { send } from "./send";
import { type ArmCredential, bearerHeader } from "./token";

/**
 * One GET against a health endpoint the operator named (a service behind the VMs, a status page
 * of a dependency): did it answer with the expected status in time? With `bearerScope`, the
 * request carries a token for that scope from the coordinator's credential (an App Service or
 * API Management endpoint behind Entra). The answer's body is not needed: at most a few bytes
 * are read so the connection can be reused. Never throws; `detail` says what happened in words
 * an operator reads, without the query string (which may hold a key) or the token.
 */
export interface HttpProbe {
  url: string;
  expectStatus: number;
  timeoutMs: number;
  bearerScope?: string;
}

export interface ProbeResult {
  pass: boolean;
  detail: string;
}

const BODY_BYTES_READ = 1024;

export async function probeHttp(
  probe: HttpProbe,
  deps: { credential?: ArmCredential; dispatcher: HttpDispatcher },
): Promise<ProbeResult> {
  if (!URL.canParse(probe.url)) return { pass: false, detail: `${probe.url} is not a URL` };
  const url = new URL(probe.url);
  const shown = `GET ${url.origin}${url.pathname}`;
  const headers: Record<string, string> = {};
  if (probe.bearerScope) {
    const bearer = await bearerHeader(deps.credential, probe.bearerScope);
    if (!bearer.ok) return { pass: false, detail: bearer.error };
    Object.assign(headers, bearer.value);
  }
  const sent = await send(
    deps.dispatcher,
    url,
    { method: "GET", headers },
    { timeoutMs: probe.timeoutMs, maxBytes: BODY_BYTES_READ },
  );
  if (!sent.ok)
    return {
      pass: false,
      detail:
        sent.error.kind === "timeout"
          ? `${shown} timed out after ${probe.timeoutMs / 1000} s`
          : redact(`${shown} failed: ${sent.error.message}`),
    };
  const status = sent.value.status;
  return status === probe.expectStatus
    ? { pass: true, detail: `${shown} answered ${status}` }
    : { pass: false, detail: `${shown} answered ${status}, expected ${probe.expectStatus}` };
}
