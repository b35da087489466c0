import { refuse, type Step } from "./types";

/**
 * Is the document recent? Azure's own lifetime (createdOn → expiresOn) has been seen at 5 s and
 * at 6 h in its documentation, so the coordinator enforces its own window (maxAgeMs) as well as
 * Azure's expiresOn, with futureSkewMs of tolerance for the clocks of Azure and of the Function
 * host. The nonce, checked by the caller, is what makes a document single-use.
 */
export function checkFreshness(
  times: { createdOn: number; expiresOn: number },
  opts: { now: number; maxAgeMs: number; futureSkewMs: number },
): Step<null> {
  const { createdOn, expiresOn } = times;
  const { now, maxAgeMs, futureSkewMs } = opts;
  if (createdOn > now + futureSkewMs)
    return refuse(
      "future",
      `createdOn ${iso(createdOn)} is ${seconds(createdOn - now)} after now (${iso(now)})`,
    );
  if (createdOn < now - maxAgeMs)
    return refuse(
      "expired",
      `createdOn ${iso(createdOn)} is ${seconds(now - createdOn)} old, more than ${seconds(maxAgeMs)}`,
    );
  if (expiresOn < now - futureSkewMs)
    return refuse("expired", `expiresOn ${iso(expiresOn)} has passed (now ${iso(now)})`);
  return { ok: true, value: null };
}

const iso = (ms: number) => new Date(ms).toISOString();
const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;
