import { z } from "zod";
import { redact } from "./redact";

/**
 * The one rule for every URL Quiesce sends a credential to (a bearer token, a shared key, a
 * signed request, a secret webhook URL) or trusts the answer of: https, or plain http only to a
 * loopback address (tests, `npm start`, a stand-in on the same host), so no secret or probe ever
 * crosses a network in clear. Hostnames are compared after WHATWG parsing, which lower-cases them
 * and normalises IP literals (`[0:0::1]` is `[::1]`), so a spelling cannot slip past.
 */
const LOOPBACK_HOSTS: readonly string[] = ["127.0.0.1", "localhost", "[::1]"];

export const HTTPS_OR_LOOPBACK =
  "must be https (plain http only to a loopback address: 127.0.0.1, [::1] or localhost)";

export function isHttpsOrLoopback(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const { protocol, hostname } = new URL(url);
  return protocol === "https:" || (protocol === "http:" && LOOPBACK_HOSTS.includes(hostname));
}

/** An absolute http(s) URL with a host: what every URL setting but an audience names. */
export function isHttpUrl(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const { protocol, hostname } = new URL(url);
  return (protocol === "https:" || protocol === "http:") && hostname !== "";
}

/**
 * A value as an error message may quote it: through redact() (a token in its query, a password
 * in it), and cut short. Values that are wholly secrets (a webhook URL) are never quoted at all.
 */
export function quoteForError(value: string, max = 120): string {
  const text = redact(value);
  return JSON.stringify(text.length > max ? `${text.slice(0, max - 3)}...` : text);
}

type UrlKind = "httpsOrLoopback" | "http" | "any";

/**
 * A URL setting: one message saying what is wrong, `not a valid URL ("htp:/x")`, which the
 * setting's name is put in front of (never zod's bare "Invalid URL", naming nothing, nor two
 * messages for one value). `secret`: the value is not quoted, even redacted.
 */
function urlSetting(kind: UrlKind, secret: boolean) {
  return z.string().superRefine((value, ctx) => {
    const valid =
      kind === "any" ? /^[a-z][a-z0-9+.-]*:/i.test(value) && URL.canParse(value) : isHttpUrl(value);
    if (!valid) {
      const shown = secret ? "the value is a secret: not shown" : quoteForError(value);
      ctx.addIssue({ code: "custom", message: `not a valid URL (${shown})` });
    } else if (kind === "httpsOrLoopback" && !isHttpsOrLoopback(value))
      ctx.addIssue({ code: "custom", message: HTTPS_OR_LOOPBACK });
  });
}

/** A URL given a credential or trusted: https, or http to loopback (see above). */
export const HttpsOrLoopbackUrl = urlSetting("httpsOrLoopback", false);
/** The same, for a URL that is itself a secret (a webhook's URL holds its key). */
export const SecretHttpsOrLoopbackUrl = urlSetting("httpsOrLoopback", true);
/** An http(s) URL anywhere: a local hook, IMDS, a stand-in; no credential is sent to it. */
export const HttpUrl = urlSetting("http", false);
/** Any absolute URL (scheme included), e.g. a token audience such as api://app. */
export const AbsoluteUrl = urlSetting("any", false);
