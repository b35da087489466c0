import { describeZodError } from "@quiesce/protocol";
import { z } from "zod";
import { type AttestedContent, refuse, type Step } from "./types";

/**
 * The signed JSON inside an attested document, as Azure's IMDS documents it (vmId, nonce,
 * subscriptionId, sku, licenseType, plan, timeStamp): only what the coordinator relies on is
 * required. Fields Azure may add later are ignored, not refused: the signature already proves
 * Azure wrote them.
 */

/**
 * IMDS's timestamps: "11/30/20 21:19:19 -0000" (month/day/two-digit year, 24-hour time, a UTC
 * offset). Two-digit years are 20YY: attested data exists since 2018.
 */
const TIMESTAMP = /^(\d{2})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})$/;

/** Epoch ms of an IMDS timestamp, the offset honoured; undefined when it is not one. */
export function parseImdsTimestamp(text: string): number | undefined {
  const m = TIMESTAMP.exec(text);
  if (!m) return undefined;
  const [month, day, yy, hour, minute, second, sign, offH, offM] = m.slice(1);
  const n = (s: string | undefined) => Number(s);
  const year = 2000 + n(yy);
  const local = Date.UTC(year, n(month) - 1, n(day), n(hour), n(minute), n(second));
  // Date.UTC rolls 02/30 over to March: a date that does not round-trip is not a date.
  const d = new Date(local);
  if (
    d.getUTCFullYear() !== year ||
    d.getUTCMonth() !== n(month) - 1 ||
    d.getUTCDate() !== n(day) ||
    n(hour) > 23 ||
    n(minute) > 59 ||
    n(second) > 59 ||
    n(offH) > 23 ||
    n(offM) > 59
  )
    return undefined;
  const offsetMs = (n(offH) * 60 + n(offM)) * 60_000;
  // "-0500" means local time is 5 h behind UTC: UTC = local + 5 h.
  return sign === "-" ? local + offsetMs : local - offsetMs;
}

const timestamp = z.string().transform((text, ctx) => {
  const ms = parseImdsTimestamp(text);
  if (ms !== undefined) return ms;
  ctx.addIssue({ code: "custom", message: 'not "MM/DD/YY HH:mm:ss -0000"' });
  return z.NEVER;
});

export const AttestedJson = z.object({
  vmId: z.string().min(1),
  subscriptionId: z.string().min(1),
  nonce: z.string().min(1),
  sku: z.string().optional(),
  licenseType: z.string().optional(),
  plan: z
    .object({
      name: z.string().optional(),
      product: z.string().optional(),
      publisher: z.string().optional(),
    })
    .optional(),
  timeStamp: z.object({ createdOn: timestamp, expiresOn: timestamp }),
});

/** The eContent bytes as the documented JSON, or a "malformed" refusal naming the field. */
export function parseAttestedContent(bytes: Uint8Array): Step<AttestedContent> {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (e) {
    return refuse("malformed", `signed content is not JSON: ${(e as Error).message}`);
  }
  const parsed = AttestedJson.safeParse(json);
  if (!parsed.success)
    return refuse("malformed", `signed content: ${describeZodError(parsed.error)}`);
  const { vmId, subscriptionId, nonce, sku, timeStamp } = parsed.data;
  return {
    ok: true,
    value: {
      vmId,
      subscriptionId,
      nonce,
      createdOn: timeStamp.createdOn,
      expiresOn: timeStamp.expiresOn,
      // Azure sends "sku": "" when it has none (real documents do): absent, not empty.
      ...(sku ? { sku } : {}),
    },
  };
}
