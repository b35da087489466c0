import type { ArmEngine } from "../engine";
import type { ArmAnswer } from "../errors";

/** What a resource handler gets: the request, already authenticated, versioned and authorized. */
export interface ArmCall {
  readonly arm: ArmEngine;
  /** The path's parameters by name, decoded (names as the client wrote them). */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly ifMatch?: string;
  /** The JSON body, or the 400 ARM answers for an unreadable one. */
  readonly body: () => Promise<{ ok: true; value: unknown } | { ok: false; answer: ArmAnswer }>;
  readonly principalId: string;
  /** The request path: the resource id the call is about. */
  readonly path: string;
}
