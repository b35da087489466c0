import { randomBytes, randomUUID } from "node:crypto";
import { type ControlResult, parseCommand, refused } from "../model/controlResult";
import { stableUuid } from "../topology/topology";
import { RegisterIdentity } from "./commands";
import { type ArmScope, userAssignedIdentityId } from "./ids";

/**
 * The managed identities of the coordinator's host and the tokens issued to them: the Entra ID
 * side of the simulation. It outlives fabric resets (a reset does not invalidate the tokens a
 * running coordinator holds). Tokens are opaque random strings; the simulator maps each back to
 * its principal, which is how the ARM side knows which identity called.
 */

export interface ManagedIdentity {
  readonly kind: "systemAssigned" | "userAssigned";
  readonly name: string;
  readonly principalId: string;
  readonly clientId: string;
  /** User-assigned only: the `Microsoft.ManagedIdentity/userAssignedIdentities` id (`mi_res_id`). */
  readonly resourceId?: string;
}

export interface IssuedToken {
  readonly principalId: string;
  readonly clientId: string;
  /** The audience it was requested for (`resource`). */
  readonly resource: string;
  /** Epoch seconds, real time (Entra tokens expire in real time, whatever the fabric's scale). */
  readonly expiresOn: number;
}

/** App Service issues tokens valid for about a day; MSAL refreshes them halfway. */
const TOKEN_LIFETIME_SECONDS = 24 * 3600;

export type IdentitySelector =
  | { readonly clientId: string }
  | { readonly principalId: string }
  | { readonly resourceId: string }
  | Record<string, never>;

export class IdentityRegistry {
  /** The `IDENTITY_HEADER` secret the token endpoint requires (`X-IDENTITY-HEADER`). */
  readonly header = randomUUID();
  readonly tenantId: string;
  readonly system: ManagedIdentity;
  private readonly users = new Map<string, ManagedIdentity>();
  private readonly tokens = new Map<string, IssuedToken>();

  constructor(private readonly scope: () => ArmScope) {
    const s = scope();
    this.tenantId = stableUuid("tenant", s.subscriptionId);
    this.system = {
      kind: "systemAssigned",
      name: "system-assigned",
      principalId: stableUuid("system-assigned principal", s.subscriptionId, s.resourceGroupName),
      clientId: stableUuid("system-assigned client", s.subscriptionId, s.resourceGroupName),
    };
  }

  register(input: unknown): ControlResult<ManagedIdentity> {
    const p = parseCommand(RegisterIdentity, input);
    if (!p.ok) return p;
    const { name } = p.value;
    if (this.users.has(name.toLowerCase())) return refused(409, `identity ${name} exists`);
    const identity: ManagedIdentity = {
      kind: "userAssigned",
      name,
      principalId: p.value.principalId ?? stableUuid("user-assigned principal", name),
      clientId: p.value.clientId ?? stableUuid("user-assigned client", name),
      resourceId: userAssignedIdentityId(this.scope(), name),
    };
    const clash = this.list().find(
      (i) =>
        i.principalId.toLowerCase() === identity.principalId.toLowerCase() ||
        i.clientId.toLowerCase() === identity.clientId.toLowerCase(),
    );
    if (clash)
      return refused(409, `identity ${clash.name} already has that client or principal id`);
    this.users.set(name.toLowerCase(), identity);
    return { ok: true, value: identity };
  }

  list(): ManagedIdentity[] {
    return [this.system, ...this.users.values()];
  }

  /** The identity a token request names: the system-assigned one when it names none. */
  find(selector: IdentitySelector): ManagedIdentity | undefined {
    const eq = (a: string | undefined, b: string) => a?.toLowerCase() === b.toLowerCase();
    if ("clientId" in selector) return this.list().find((i) => eq(i.clientId, selector.clientId));
    if ("principalId" in selector)
      return this.list().find((i) => eq(i.principalId, selector.principalId));
    if ("resourceId" in selector)
      return this.list().find((i) => eq(i.resourceId, selector.resourceId));
    return this.system;
  }

  issue(
    identity: ManagedIdentity,
    resource: string,
    nowMs = Date.now(),
  ): IssuedToken & {
    token: string;
  } {
    const token = randomBytes(32).toString("base64url");
    const issued: IssuedToken = {
      principalId: identity.principalId,
      clientId: identity.clientId,
      resource,
      expiresOn: Math.floor(nowMs / 1000) + TOKEN_LIFETIME_SECONDS,
    };
    this.tokens.set(token, issued);
    return { ...issued, token };
  }

  resolve(token: string): IssuedToken | undefined {
    return this.tokens.get(token);
  }
}
