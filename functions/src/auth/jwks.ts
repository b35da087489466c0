import { parseJsonWith } from "@quiesce/protocol";
import { createLocalJWKSet, createRemoteJWKSet, errors, type JWTVerifyGetKey } from "jose";
import { z } from "zod";
import { AuthUnavailableError } from "./types";

/** Same pacing as jose's remote key set: keys cached 10 min, an unknown `kid` refetches at most every 30 s. */
const CACHE_MAX_AGE_MS = 600_000;
const COOLDOWN_MS = 30_000;
const TIMEOUT_MS = 5_000;

/**
 * The tenant's published signing keys. Without `fetchImpl`, jose's own remote key set; with it,
 * the same caching over the given fetch (for a proxy-aware or instrumented fetch).
 */
export function signingKeys(url: URL, fetchImpl?: typeof fetch): JWTVerifyGetKey {
  if (!fetchImpl)
    return createRemoteJWKSet(url, {
      cacheMaxAge: CACHE_MAX_AGE_MS,
      cooldownDuration: COOLDOWN_MS,
      timeoutDuration: TIMEOUT_MS,
    });
  return fetchedKeySet(url, fetchImpl);
}

type LocalSet = ReturnType<typeof createLocalJWKSet>;

/**
 * A published key set: a list of keys, each checked by createLocalJWKSet when used. A key
 * without `kty` could never verify a token (keys are picked by type): it is left out.
 */
const KeySet = z.object({
  keys: z
    .array(z.looseObject({ kty: z.string().optional() }))
    .transform((keys) => keys.filter((k): k is typeof k & { kty: string } => k.kty !== undefined)),
});

function fetchedKeySet(url: URL, fetchImpl: typeof fetch): JWTVerifyGetKey {
  let current: { keys: LocalSet; at: number } | undefined;
  let inflight: Promise<{ keys: LocalSet; at: number }> | undefined;

  const fetchKeys = async () => {
    const res = await fetchImpl(url, {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (!res.ok) throw new AuthUnavailableError(`signing keys: HTTP ${res.status} from ${url}`);
    const body = parseJsonWith(KeySet, await res.text());
    if (!body.ok) throw new AuthUnavailableError(`signing keys from ${url}: ${body.error}`);
    current = { keys: createLocalJWKSet(body.value), at: Date.now() };
    return current;
  };
  // One fetch at a time; `.finally` runs asynchronously, so even a fetch that throws at once
  // cannot leave a settled promise behind as "in flight".
  const load = () => {
    inflight ??= fetchKeys().finally(() => {
      inflight = undefined;
    });
    return inflight;
  };

  return async (header, token) => {
    const fresh = current && Date.now() - current.at < CACHE_MAX_AGE_MS ? current : await load();
    try {
      return await fresh.keys(header, token);
    } catch (e) {
      // Entra rolls its keys: an unknown kid may be a new key, so refetch (but not too often).
      if (e instanceof errors.JWKSNoMatchingKey && Date.now() - fresh.at >= COOLDOWN_MS)
        return (await load()).keys(header, token);
      throw e;
    }
  };
}
