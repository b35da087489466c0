import { randomUUID } from "node:crypto";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWTPayload, type KeyLike, SignJWT } from "jose";

/**
 * A local Entra ID stand-in for tests: a real RS256 key pair, its public half served as a JWKS
 * on 127.0.0.1, and tokens minted with whatever claims a test needs. Nothing in the coordinator
 * knows it is not Entra: it fetches the keys over HTTP and verifies signatures as in Azure.
 */
export interface LocalEntra {
  /** Where the JWKS is served: set QUIESCE_ENTRA_JWKS_URL to this. */
  jwksUrl: string;
  tenantId: string;
  /** The v1 issuer Entra puts in managed-identity tokens (accepted by default). */
  issuer: string;
  /** The v2 issuer (also accepted by default). */
  issuerV2: string;
  audience: string;
  /** The coordinator settings that point entra mode at this stand-in. */
  settings: {
    QUIESCE_AUTH_MODE: "entra";
    QUIESCE_ENTRA_TENANT_ID: string;
    QUIESCE_ENTRA_AUDIENCE: string;
    QUIESCE_ENTRA_JWKS_URL: string;
  };
  /** A signed token: defaults for a managed identity of this tenant, overridden by `claims`; an `undefined` value removes the claim. */
  mint(claims?: Record<string, unknown>): Promise<string>;
  /** Like mint, same kid, but signed by a key that is not in the JWKS (a forged token). */
  mintForged(claims?: Record<string, unknown>): Promise<string>;
  /** Claims of a relay VM's system-assigned identity holding the relay app role. */
  relayClaims(vmResourceId: string, roles?: string[]): Record<string, unknown>;
  /** How many times the JWKS was fetched. */
  readonly jwksRequests: number;
  /** Base URL of a Microsoft Graph stand-in serving `GET /v1.0/servicePrincipals/{id}`. */
  graphUrl: string;
  /** A credential for `createGraphIdentityResolver` that this Graph stand-in accepts. */
  graphCredential: { getToken(scope: string): Promise<{ token: string }> };
  /** Makes `objectId` a managed identity of `resourceId` in Graph (system-assigned unless said otherwise). */
  registerManagedIdentity(objectId: string, resourceId: string, kind?: "system" | "user"): void;
  /** Makes Graph answer every lookup with this status (undefined: normal again). */
  failGraphWith(status: number | undefined): void;
  readonly graphRequests: number;
  stop(): Promise<void>;
}

export async function startLocalEntra(options?: { audience?: string }): Promise<LocalEntra> {
  const tenantId = randomUUID();
  const audience = options?.audience ?? "api://quiesce-coordinator-test";
  const issuer = `https://sts.windows.net/${tenantId}/`;
  const kid = `test-${randomUUID().slice(0, 8)}`;
  const signing = await generateKeyPair("RS256");
  const forged = await generateKeyPair("RS256");
  const jwks = {
    keys: [{ ...(await exportJWK(signing.publicKey)), kid, use: "sig", alg: "RS256" }],
  };

  let jwksRequests = 0;
  let graphRequests = 0;
  let graphFailure: number | undefined;
  const graphToken = `graph-${randomUUID()}`;
  const identities = new Map<string, { resourceId: string; explicit: boolean }>();
  const keysPath = `/${tenantId}/discovery/v2.0/keys`;
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method === "GET" && url.pathname === keysPath) {
      jwksRequests++;
      return json(res, 200, jwks);
    }
    const sp = /^\/v1\.0\/servicePrincipals\/([^/]+)$/.exec(url.pathname);
    if (req.method === "GET" && sp?.[1]) {
      graphRequests++;
      if (req.headers.authorization !== `Bearer ${graphToken}`)
        return json(res, 401, { error: { code: "InvalidAuthenticationToken" } });
      if (graphFailure !== undefined)
        return json(res, graphFailure, { error: { code: "Failure" } });
      const identity = identities.get(decodeURIComponent(sp[1]).toLowerCase());
      if (!identity) return json(res, 404, { error: { code: "Request_ResourceNotFound" } });
      return json(res, 200, {
        servicePrincipalType: "ManagedIdentity",
        alternativeNames: [
          `isExplicit=${identity.explicit ? "True" : "False"}`,
          identity.resourceId,
        ],
      });
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const jwksUrl = `http://127.0.0.1:${port}${keysPath}`;

  const sign = async (key: KeyLike, claims: Record<string, unknown> = {}) => {
    const now = Math.floor(Date.now() / 1000);
    const oid = randomUUID();
    const payload: Record<string, unknown> = {
      aud: audience,
      iss: issuer,
      tid: tenantId,
      oid,
      sub: oid,
      appid: randomUUID(),
      idtyp: "app",
      iat: now,
      nbf: now,
      exp: now + 3600,
      ...claims,
    };
    for (const [k, v] of Object.entries(payload)) if (v === undefined) delete payload[k];
    return new SignJWT(payload as JWTPayload)
      .setProtectedHeader({ alg: "RS256", typ: "JWT", kid })
      .sign(key);
  };

  return {
    jwksUrl,
    tenantId,
    issuer,
    issuerV2: `https://login.microsoftonline.com/${tenantId}/v2.0`,
    audience,
    settings: {
      QUIESCE_AUTH_MODE: "entra",
      QUIESCE_ENTRA_TENANT_ID: tenantId,
      QUIESCE_ENTRA_AUDIENCE: audience,
      QUIESCE_ENTRA_JWKS_URL: jwksUrl,
    },
    mint: (claims) => sign(signing.privateKey, claims),
    mintForged: (claims) => sign(forged.privateKey, claims),
    relayClaims: (vmResourceId, roles = ["Quiesce.Relay"]) => ({
      roles,
      xms_mirid: vmResourceId,
      xms_az_rid: vmResourceId,
    }),
    get jwksRequests() {
      return jwksRequests;
    },
    graphUrl: `http://127.0.0.1:${port}`,
    graphCredential: { getToken: async () => ({ token: graphToken }) },
    registerManagedIdentity: (objectId, resourceId, kind = "system") => {
      identities.set(objectId.toLowerCase(), { resourceId, explicit: kind === "user" });
    },
    failGraphWith: (status) => {
      graphFailure = status;
    },
    get graphRequests() {
      return graphRequests;
    },
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
