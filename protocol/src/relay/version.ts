import { z } from "zod";

/**
 * The relay/coordinator protocol is versioned "major.minor". Minor versions only add optional
 * fields, so any 1.x peer is understood; a different major is refused before the body is parsed,
 * so the error names the version instead of a list of field mismatches.
 */
export const PROTOCOL_MAJOR = 1;
export const PROTOCOL_VERSION = "1.2";

export const ProtocolVersion = z
  .string()
  .regex(/^\d{1,4}\.\d{1,4}$/, 'protocol must be "major.minor", e.g. "1.0"');

export class UnsupportedProtocolError extends Error {
  constructor(readonly received: string) {
    super(
      `unsupported protocol version "${received}": this peer speaks ${PROTOCOL_MAJOR}.x; upgrade the older side`,
    );
    this.name = "UnsupportedProtocolError";
  }
}

/** Throws UnsupportedProtocolError for a well-formed version of another major. */
export function assertSupportedProtocol(body: unknown): void {
  if (typeof body !== "object" || body === null || !("protocol" in body)) return;
  const parsed = ProtocolVersion.safeParse((body as { protocol: unknown }).protocol);
  if (!parsed.success) return; // the full schema reports the malformed field
  const major = Number(parsed.data.split(".")[0]);
  if (major !== PROTOCOL_MAJOR) throw new UnsupportedProtocolError(parsed.data);
}
