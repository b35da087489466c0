import { readFile } from "node:fs/promises";
import { rememberSecret } from "@quiesce/protocol";

/**
 * The service account's bearer token, read from its file as client-go reads it: trimmed of
 * surrounding whitespace (a file written by `kubectl create token ... > file` ends in a newline,
 * which no HTTP header may carry), an empty file refused, and read again every minute so the
 * kubelet's rotation of a projected token is picked up; after a 401 it is read again at once.
 * A failed re-read keeps the token already held. client-node's own tokenFile provider does none
 * of the trimming (1.4.0: `fs.readFileSync(filePath).toString('utf-8')` as is).
 *
 * client-go: kubernetes/kubernetes staging/src/k8s.io/client-go/transport/token_source.go
 * (commit 094739447334af00866715eb08131d5c177e575b): `fileTokenSource.Token` does
 * `strings.TrimSpace(string(tokb))`, returns "read empty token from file" when nothing is left,
 * and `NewCachedFileTokenSource` re-reads with `period: time.Minute`; `ResetTokenOlderThan`
 * drops the cached token after a 401.
 *
 * Every value read is registered as a secret (with the one before it, for late errors), so no
 * log line or hook detail can carry it.
 */

export const TOKEN_REREAD_MS = 60_000;

export interface TokenFileSource {
  token(): Promise<string>;
  /** The API server refused the token: read the file again before the next call. */
  refused(): void;
}

export function tokenFileSource(
  path: string,
  now: () => number = Date.now,
  read: (path: string) => Promise<string> = (p) => readFile(p, "utf8"),
): TokenFileSource {
  let held: { token: string; readAt: number } | undefined;
  return {
    async token() {
      if (held && now() - held.readAt < TOKEN_REREAD_MS) return held.token;
      let token: string;
      try {
        token = (await read(path)).trim();
        if (token === "") throw new Error(`read an empty token from ${path}`);
      } catch (e) {
        if (held) return held.token;
        throw e instanceof Error && /empty token/.test(e.message)
          ? e
          : new Error(
              `cannot read the token file ${path}: ${(e as NodeJS.ErrnoException).code ?? "error"}`,
            );
      }
      rememberSecret(`kubernetes token ${path}`, token);
      held = { token, readAt: now() };
      return token;
    },
    refused() {
      if (held) held = { ...held, readAt: Number.NEGATIVE_INFINITY };
    },
  };
}
