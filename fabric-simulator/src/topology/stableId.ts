import { createHash } from "node:crypto";

/** Deterministic ids, so a topology file always yields the same vmIds and placement group ids. */
export function stableUuid(...parts: string[]): string {
  const h = createHash("sha1").update(parts.join("\u0000")).digest("hex");
  const variant = ((Number.parseInt(h[16] ?? "0", 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
