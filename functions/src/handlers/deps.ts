import type { InvocationContext } from "@azure/functions";
import type { Logger } from "@quiesce/protocol";
import type { Authenticator, AuthResult, Denial, Role } from "../auth";
import { AuthUnavailableError } from "../auth";
import { invocationLogger } from "../log";
import type { PipelineDeps } from "../pipeline/deps";
import type { RefusedReports } from "../status/refusedReports";
import { problem } from "./http";

/** What the handlers run with: the rounds' deps, and who may call them. */
export interface HandlerDeps extends PipelineDeps {
  authenticator: Authenticator;
  /** Reports refused at authentication, by the VM they claim (this instance's; never stored). */
  refusedReports: RefusedReports;
  /**
   * The app-level logger, for work that outlives an invocation; in one, log to it instead
   * (log/index.ts: invocationLogger).
   */
  log: Logger;
}

/** Authenticates, turning "the key service is unreachable" into a 503 instead of a 401. */
export async function authenticate(
  deps: HandlerDeps,
  authorization: string | null,
  need: Role,
  context: InvocationContext,
): Promise<AuthResult> {
  try {
    return await deps.authenticator.authenticate(authorization, need);
  } catch (e) {
    if (e instanceof AuthUnavailableError) {
      invocationLogger(context).warn("authentication unavailable", { error: e.message });
      return {
        ok: false,
        error: { status: 503, reason: "cannot validate credentials right now; retry shortly" },
      };
    }
    throw e;
  }
}

export function denied(result: Denial) {
  const headers: Record<string, string> =
    result.status === 503
      ? { "retry-after": "5" }
      : result.status === 401
        ? { "www-authenticate": "Bearer" }
        : {};
  return problem(result.status, result.reason, headers);
}
